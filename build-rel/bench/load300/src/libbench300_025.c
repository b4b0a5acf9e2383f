int bench300_fn_025(int x);
int bench300_fn_025(int x) { return x + 25; }
