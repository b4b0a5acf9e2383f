int bench300_fn_295(int x);
int bench300_fn_295(int x) { return x + 295; }
