int bench300_fn_010(int x);
int bench300_fn_010(int x) { return x + 10; }
