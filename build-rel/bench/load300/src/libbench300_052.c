int bench300_fn_052(int x);
int bench300_fn_052(int x) { return x + 52; }
