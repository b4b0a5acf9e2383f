int bench300_fn_256(int x);
int bench300_fn_256(int x) { return x + 256; }
