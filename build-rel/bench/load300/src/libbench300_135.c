int bench300_fn_135(int x);
int bench300_fn_135(int x) { return x + 135; }
