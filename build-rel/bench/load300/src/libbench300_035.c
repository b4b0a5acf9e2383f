int bench300_fn_035(int x);
int bench300_fn_035(int x) { return x + 35; }
