int bench300_fn_060(int x);
int bench300_fn_060(int x) { return x + 60; }
