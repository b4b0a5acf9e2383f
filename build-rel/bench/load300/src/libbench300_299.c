int bench300_fn_299(int x);
int bench300_fn_299(int x) { return x + 299; }
