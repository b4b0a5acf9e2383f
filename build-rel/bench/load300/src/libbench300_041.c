int bench300_fn_041(int x);
int bench300_fn_041(int x) { return x + 41; }
