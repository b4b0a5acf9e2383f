int bench300_fn_111(int x);
int bench300_fn_111(int x) { return x + 111; }
