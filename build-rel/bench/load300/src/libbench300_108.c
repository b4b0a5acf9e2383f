int bench300_fn_108(int x);
int bench300_fn_108(int x) { return x + 108; }
