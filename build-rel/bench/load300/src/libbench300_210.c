int bench300_fn_210(int x);
int bench300_fn_210(int x) { return x + 210; }
