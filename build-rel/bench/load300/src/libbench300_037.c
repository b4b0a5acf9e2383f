int bench300_fn_037(int x);
int bench300_fn_037(int x) { return x + 37; }
