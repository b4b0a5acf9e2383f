int bench300_fn_110(int x);
int bench300_fn_110(int x) { return x + 110; }
