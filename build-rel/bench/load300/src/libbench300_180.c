int bench300_fn_180(int x);
int bench300_fn_180(int x) { return x + 180; }
