int bench300_fn_207(int x);
int bench300_fn_207(int x) { return x + 207; }
