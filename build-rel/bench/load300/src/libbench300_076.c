int bench300_fn_076(int x);
int bench300_fn_076(int x) { return x + 76; }
