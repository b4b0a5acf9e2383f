int bench300_fn_018(int x);
int bench300_fn_018(int x) { return x + 18; }
