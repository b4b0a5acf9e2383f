int bench300_fn_105(int x);
int bench300_fn_105(int x) { return x + 105; }
