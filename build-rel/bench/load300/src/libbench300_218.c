int bench300_fn_218(int x);
int bench300_fn_218(int x) { return x + 218; }
