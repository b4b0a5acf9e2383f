int bench300_fn_109(int x);
int bench300_fn_109(int x) { return x + 109; }
