int bench300_fn_091(int x);
int bench300_fn_091(int x) { return x + 91; }
