int bench300_fn_147(int x);
int bench300_fn_147(int x) { return x + 147; }
