int bench300_fn_245(int x);
int bench300_fn_245(int x) { return x + 245; }
