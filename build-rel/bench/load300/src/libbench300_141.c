int bench300_fn_141(int x);
int bench300_fn_141(int x) { return x + 141; }
