int bench300_fn_128(int x);
int bench300_fn_128(int x) { return x + 128; }
