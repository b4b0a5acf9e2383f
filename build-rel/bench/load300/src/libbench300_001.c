int bench300_fn_001(int x);
int bench300_fn_001(int x) { return x + 1; }
