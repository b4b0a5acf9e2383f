int bench300_fn_008(int x);
int bench300_fn_008(int x) { return x + 8; }
