int bench300_fn_152(int x);
int bench300_fn_152(int x) { return x + 152; }
