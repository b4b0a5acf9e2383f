int bench300_fn_270(int x);
int bench300_fn_270(int x) { return x + 270; }
