int bench300_fn_080(int x);
int bench300_fn_080(int x) { return x + 80; }
