int bench300_fn_006(int x);
int bench300_fn_006(int x) { return x + 6; }
