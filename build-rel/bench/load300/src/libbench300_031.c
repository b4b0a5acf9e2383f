int bench300_fn_031(int x);
int bench300_fn_031(int x) { return x + 31; }
