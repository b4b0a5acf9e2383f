int bench300_fn_252(int x);
int bench300_fn_252(int x) { return x + 252; }
