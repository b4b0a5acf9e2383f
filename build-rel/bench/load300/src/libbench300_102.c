int bench300_fn_102(int x);
int bench300_fn_102(int x) { return x + 102; }
