int bench300_fn_030(int x);
int bench300_fn_030(int x) { return x + 30; }
