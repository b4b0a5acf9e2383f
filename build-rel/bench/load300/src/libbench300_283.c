int bench300_fn_283(int x);
int bench300_fn_283(int x) { return x + 283; }
