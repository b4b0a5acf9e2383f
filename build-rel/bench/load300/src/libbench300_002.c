int bench300_fn_002(int x);
int bench300_fn_002(int x) { return x + 2; }
