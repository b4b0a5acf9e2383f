int bench300_fn_011(int x);
int bench300_fn_011(int x) { return x + 11; }
