int bench300_fn_065(int x);
int bench300_fn_065(int x) { return x + 65; }
