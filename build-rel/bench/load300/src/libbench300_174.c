int bench300_fn_174(int x);
int bench300_fn_174(int x) { return x + 174; }
