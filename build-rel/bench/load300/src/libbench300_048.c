int bench300_fn_048(int x);
int bench300_fn_048(int x) { return x + 48; }
