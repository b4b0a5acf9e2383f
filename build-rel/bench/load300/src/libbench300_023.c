int bench300_fn_023(int x);
int bench300_fn_023(int x) { return x + 23; }
