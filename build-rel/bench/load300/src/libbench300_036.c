int bench300_fn_036(int x);
int bench300_fn_036(int x) { return x + 36; }
