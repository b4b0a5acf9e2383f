int bench300_fn_115(int x);
int bench300_fn_115(int x) { return x + 115; }
