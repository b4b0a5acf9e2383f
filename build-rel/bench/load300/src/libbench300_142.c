int bench300_fn_142(int x);
int bench300_fn_142(int x) { return x + 142; }
