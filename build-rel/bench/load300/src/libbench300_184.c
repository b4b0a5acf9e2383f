int bench300_fn_184(int x);
int bench300_fn_184(int x) { return x + 184; }
