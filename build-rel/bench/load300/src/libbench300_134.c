int bench300_fn_134(int x);
int bench300_fn_134(int x) { return x + 134; }
