int bench300_fn_153(int x);
int bench300_fn_153(int x) { return x + 153; }
