int bench300_fn_208(int x);
int bench300_fn_208(int x) { return x + 208; }
