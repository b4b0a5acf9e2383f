int bench300_fn_094(int x);
int bench300_fn_094(int x) { return x + 94; }
