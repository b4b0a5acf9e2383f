int bench300_fn_291(int x);
int bench300_fn_291(int x) { return x + 291; }
