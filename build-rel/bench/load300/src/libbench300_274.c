int bench300_fn_274(int x);
int bench300_fn_274(int x) { return x + 274; }
