int bench300_fn_127(int x);
int bench300_fn_127(int x) { return x + 127; }
