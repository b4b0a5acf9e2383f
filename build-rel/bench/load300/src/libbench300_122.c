int bench300_fn_122(int x);
int bench300_fn_122(int x) { return x + 122; }
