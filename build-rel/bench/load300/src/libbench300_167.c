int bench300_fn_167(int x);
int bench300_fn_167(int x) { return x + 167; }
