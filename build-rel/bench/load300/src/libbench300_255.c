int bench300_fn_255(int x);
int bench300_fn_255(int x) { return x + 255; }
