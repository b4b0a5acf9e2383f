int bench300_fn_081(int x);
int bench300_fn_081(int x) { return x + 81; }
