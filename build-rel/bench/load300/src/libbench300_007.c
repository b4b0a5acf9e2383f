int bench300_fn_007(int x);
int bench300_fn_007(int x) { return x + 7; }
