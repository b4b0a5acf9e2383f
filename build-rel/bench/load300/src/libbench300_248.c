int bench300_fn_248(int x);
int bench300_fn_248(int x) { return x + 248; }
