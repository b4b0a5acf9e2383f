int bench300_fn_061(int x);
int bench300_fn_061(int x) { return x + 61; }
