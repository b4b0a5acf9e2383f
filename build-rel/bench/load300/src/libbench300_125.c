int bench300_fn_125(int x);
int bench300_fn_125(int x) { return x + 125; }
