int bench300_fn_118(int x);
int bench300_fn_118(int x) { return x + 118; }
