int bench300_fn_175(int x);
int bench300_fn_175(int x) { return x + 175; }
