int bench300_fn_117(int x);
int bench300_fn_117(int x) { return x + 117; }
