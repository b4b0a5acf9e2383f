int bench300_fn_051(int x);
int bench300_fn_051(int x) { return x + 51; }
