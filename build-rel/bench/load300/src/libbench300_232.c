int bench300_fn_232(int x);
int bench300_fn_232(int x) { return x + 232; }
