int bench300_fn_131(int x);
int bench300_fn_131(int x) { return x + 131; }
