int bench300_fn_101(int x);
int bench300_fn_101(int x) { return x + 101; }
