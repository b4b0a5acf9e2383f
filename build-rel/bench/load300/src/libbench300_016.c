int bench300_fn_016(int x);
int bench300_fn_016(int x) { return x + 16; }
