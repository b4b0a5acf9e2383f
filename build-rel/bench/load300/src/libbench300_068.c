int bench300_fn_068(int x);
int bench300_fn_068(int x) { return x + 68; }
