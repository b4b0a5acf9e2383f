int bench300_fn_158(int x);
int bench300_fn_158(int x) { return x + 158; }
