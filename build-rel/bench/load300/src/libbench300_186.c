int bench300_fn_186(int x);
int bench300_fn_186(int x) { return x + 186; }
