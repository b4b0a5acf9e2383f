int bench300_fn_227(int x);
int bench300_fn_227(int x) { return x + 227; }
