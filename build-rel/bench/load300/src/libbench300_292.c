int bench300_fn_292(int x);
int bench300_fn_292(int x) { return x + 292; }
