int bench300_fn_095(int x);
int bench300_fn_095(int x) { return x + 95; }
