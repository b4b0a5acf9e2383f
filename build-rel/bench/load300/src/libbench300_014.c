int bench300_fn_014(int x);
int bench300_fn_014(int x) { return x + 14; }
