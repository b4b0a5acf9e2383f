int bench300_fn_289(int x);
int bench300_fn_289(int x) { return x + 289; }
