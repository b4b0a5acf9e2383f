int bench300_fn_171(int x);
int bench300_fn_171(int x) { return x + 171; }
