int bench300_fn_265(int x);
int bench300_fn_265(int x) { return x + 265; }
