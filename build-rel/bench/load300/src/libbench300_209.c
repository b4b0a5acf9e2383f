int bench300_fn_209(int x);
int bench300_fn_209(int x) { return x + 209; }
