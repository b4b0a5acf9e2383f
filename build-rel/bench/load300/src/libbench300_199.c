int bench300_fn_199(int x);
int bench300_fn_199(int x) { return x + 199; }
