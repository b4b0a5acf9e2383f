int bench300_fn_132(int x);
int bench300_fn_132(int x) { return x + 132; }
