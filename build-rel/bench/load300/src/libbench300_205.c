int bench300_fn_205(int x);
int bench300_fn_205(int x) { return x + 205; }
