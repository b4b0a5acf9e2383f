int bench300_fn_149(int x);
int bench300_fn_149(int x) { return x + 149; }
