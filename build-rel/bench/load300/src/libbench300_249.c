int bench300_fn_249(int x);
int bench300_fn_249(int x) { return x + 249; }
