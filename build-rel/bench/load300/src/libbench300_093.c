int bench300_fn_093(int x);
int bench300_fn_093(int x) { return x + 93; }
