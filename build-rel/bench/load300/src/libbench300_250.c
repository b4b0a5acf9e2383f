int bench300_fn_250(int x);
int bench300_fn_250(int x) { return x + 250; }
