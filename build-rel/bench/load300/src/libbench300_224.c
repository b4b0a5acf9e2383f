int bench300_fn_224(int x);
int bench300_fn_224(int x) { return x + 224; }
