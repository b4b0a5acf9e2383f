int bench300_fn_136(int x);
int bench300_fn_136(int x) { return x + 136; }
