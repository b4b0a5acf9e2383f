int bench300_fn_129(int x);
int bench300_fn_129(int x) { return x + 129; }
