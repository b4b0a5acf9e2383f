int bench300_fn_273(int x);
int bench300_fn_273(int x) { return x + 273; }
