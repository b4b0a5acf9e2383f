int bench300_fn_000(int x);
int bench300_fn_000(int x) { return x + 0; }
