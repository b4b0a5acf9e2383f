int bench300_fn_137(int x);
int bench300_fn_137(int x) { return x + 137; }
