int bench300_fn_033(int x);
int bench300_fn_033(int x) { return x + 33; }
