int bench300_fn_138(int x);
int bench300_fn_138(int x) { return x + 138; }
