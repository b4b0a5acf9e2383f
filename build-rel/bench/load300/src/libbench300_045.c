int bench300_fn_045(int x);
int bench300_fn_045(int x) { return x + 45; }
