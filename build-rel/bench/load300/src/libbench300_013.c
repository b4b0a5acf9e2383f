int bench300_fn_013(int x);
int bench300_fn_013(int x) { return x + 13; }
