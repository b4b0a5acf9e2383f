int bench300_fn_231(int x);
int bench300_fn_231(int x) { return x + 231; }
