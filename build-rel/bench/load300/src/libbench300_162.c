int bench300_fn_162(int x);
int bench300_fn_162(int x) { return x + 162; }
