int bench300_fn_251(int x);
int bench300_fn_251(int x) { return x + 251; }
