int bench300_fn_254(int x);
int bench300_fn_254(int x) { return x + 254; }
