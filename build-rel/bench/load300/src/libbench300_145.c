int bench300_fn_145(int x);
int bench300_fn_145(int x) { return x + 145; }
