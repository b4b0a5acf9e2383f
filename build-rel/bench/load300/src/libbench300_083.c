int bench300_fn_083(int x);
int bench300_fn_083(int x) { return x + 83; }
