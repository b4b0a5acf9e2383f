int bench300_fn_192(int x);
int bench300_fn_192(int x) { return x + 192; }
