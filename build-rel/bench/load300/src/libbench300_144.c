int bench300_fn_144(int x);
int bench300_fn_144(int x) { return x + 144; }
