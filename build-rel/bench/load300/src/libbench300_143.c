int bench300_fn_143(int x);
int bench300_fn_143(int x) { return x + 143; }
