int bench300_fn_150(int x);
int bench300_fn_150(int x) { return x + 150; }
