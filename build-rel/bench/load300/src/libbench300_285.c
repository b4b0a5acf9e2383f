int bench300_fn_285(int x);
int bench300_fn_285(int x) { return x + 285; }
