int bench300_fn_059(int x);
int bench300_fn_059(int x) { return x + 59; }
