int bench300_fn_034(int x);
int bench300_fn_034(int x) { return x + 34; }
