int bench300_fn_104(int x);
int bench300_fn_104(int x) { return x + 104; }
