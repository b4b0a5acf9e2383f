int bench300_fn_020(int x);
int bench300_fn_020(int x) { return x + 20; }
