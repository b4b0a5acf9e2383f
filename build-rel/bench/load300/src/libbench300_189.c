int bench300_fn_189(int x);
int bench300_fn_189(int x) { return x + 189; }
