int bench300_fn_130(int x);
int bench300_fn_130(int x) { return x + 130; }
