int bench300_fn_164(int x);
int bench300_fn_164(int x) { return x + 164; }
