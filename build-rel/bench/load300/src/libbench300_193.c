int bench300_fn_193(int x);
int bench300_fn_193(int x) { return x + 193; }
