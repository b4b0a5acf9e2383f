int bench300_fn_181(int x);
int bench300_fn_181(int x) { return x + 181; }
