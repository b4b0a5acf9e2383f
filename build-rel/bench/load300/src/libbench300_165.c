int bench300_fn_165(int x);
int bench300_fn_165(int x) { return x + 165; }
