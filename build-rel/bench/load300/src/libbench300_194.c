int bench300_fn_194(int x);
int bench300_fn_194(int x) { return x + 194; }
