int bench300_fn_120(int x);
int bench300_fn_120(int x) { return x + 120; }
