int bench300_fn_064(int x);
int bench300_fn_064(int x) { return x + 64; }
