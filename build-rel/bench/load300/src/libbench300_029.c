int bench300_fn_029(int x);
int bench300_fn_029(int x) { return x + 29; }
