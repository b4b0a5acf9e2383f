int bench300_fn_072(int x);
int bench300_fn_072(int x) { return x + 72; }
