int bench300_fn_230(int x);
int bench300_fn_230(int x) { return x + 230; }
