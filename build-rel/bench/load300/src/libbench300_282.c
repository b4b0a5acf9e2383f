int bench300_fn_282(int x);
int bench300_fn_282(int x) { return x + 282; }
