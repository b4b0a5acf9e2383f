int bench300_fn_278(int x);
int bench300_fn_278(int x) { return x + 278; }
