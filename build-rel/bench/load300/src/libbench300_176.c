int bench300_fn_176(int x);
int bench300_fn_176(int x) { return x + 176; }
