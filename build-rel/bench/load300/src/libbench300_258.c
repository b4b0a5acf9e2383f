int bench300_fn_258(int x);
int bench300_fn_258(int x) { return x + 258; }
