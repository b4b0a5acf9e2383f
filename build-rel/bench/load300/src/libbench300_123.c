int bench300_fn_123(int x);
int bench300_fn_123(int x) { return x + 123; }
