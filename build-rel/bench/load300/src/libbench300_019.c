int bench300_fn_019(int x);
int bench300_fn_019(int x) { return x + 19; }
