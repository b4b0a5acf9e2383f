int bench300_fn_100(int x);
int bench300_fn_100(int x) { return x + 100; }
