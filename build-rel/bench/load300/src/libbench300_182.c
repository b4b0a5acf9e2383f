int bench300_fn_182(int x);
int bench300_fn_182(int x) { return x + 182; }
