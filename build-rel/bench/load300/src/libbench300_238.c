int bench300_fn_238(int x);
int bench300_fn_238(int x) { return x + 238; }
