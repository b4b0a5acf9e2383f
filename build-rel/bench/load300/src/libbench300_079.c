int bench300_fn_079(int x);
int bench300_fn_079(int x) { return x + 79; }
