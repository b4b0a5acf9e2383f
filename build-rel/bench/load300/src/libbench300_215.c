int bench300_fn_215(int x);
int bench300_fn_215(int x) { return x + 215; }
