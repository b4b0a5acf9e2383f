int bench300_fn_160(int x);
int bench300_fn_160(int x) { return x + 160; }
