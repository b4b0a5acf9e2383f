int bench300_fn_190(int x);
int bench300_fn_190(int x) { return x + 190; }
