int bench300_fn_185(int x);
int bench300_fn_185(int x) { return x + 185; }
