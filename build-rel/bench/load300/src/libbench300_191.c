int bench300_fn_191(int x);
int bench300_fn_191(int x) { return x + 191; }
