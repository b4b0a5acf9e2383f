int bench300_fn_054(int x);
int bench300_fn_054(int x) { return x + 54; }
