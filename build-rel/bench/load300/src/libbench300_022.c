int bench300_fn_022(int x);
int bench300_fn_022(int x) { return x + 22; }
