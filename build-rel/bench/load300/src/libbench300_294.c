int bench300_fn_294(int x);
int bench300_fn_294(int x) { return x + 294; }
