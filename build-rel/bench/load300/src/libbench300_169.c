int bench300_fn_169(int x);
int bench300_fn_169(int x) { return x + 169; }
