int bench300_fn_188(int x);
int bench300_fn_188(int x) { return x + 188; }
