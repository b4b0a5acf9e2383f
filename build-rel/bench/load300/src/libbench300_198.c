int bench300_fn_198(int x);
int bench300_fn_198(int x) { return x + 198; }
