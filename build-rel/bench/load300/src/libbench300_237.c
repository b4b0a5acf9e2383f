int bench300_fn_237(int x);
int bench300_fn_237(int x) { return x + 237; }
