int bench300_fn_005(int x);
int bench300_fn_005(int x) { return x + 5; }
