int bench300_fn_183(int x);
int bench300_fn_183(int x) { return x + 183; }
