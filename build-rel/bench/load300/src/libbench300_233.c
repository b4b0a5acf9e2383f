int bench300_fn_233(int x);
int bench300_fn_233(int x) { return x + 233; }
