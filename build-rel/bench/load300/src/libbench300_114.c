int bench300_fn_114(int x);
int bench300_fn_114(int x) { return x + 114; }
