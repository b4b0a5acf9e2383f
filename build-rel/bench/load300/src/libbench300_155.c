int bench300_fn_155(int x);
int bench300_fn_155(int x) { return x + 155; }
