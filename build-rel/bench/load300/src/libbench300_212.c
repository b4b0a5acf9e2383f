int bench300_fn_212(int x);
int bench300_fn_212(int x) { return x + 212; }
