int bench300_fn_151(int x);
int bench300_fn_151(int x) { return x + 151; }
