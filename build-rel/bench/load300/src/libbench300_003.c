int bench300_fn_003(int x);
int bench300_fn_003(int x) { return x + 3; }
