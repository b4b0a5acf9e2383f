int bench300_fn_116(int x);
int bench300_fn_116(int x) { return x + 116; }
