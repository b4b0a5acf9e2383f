int bench300_fn_222(int x);
int bench300_fn_222(int x) { return x + 222; }
