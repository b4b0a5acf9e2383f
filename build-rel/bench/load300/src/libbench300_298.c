int bench300_fn_298(int x);
int bench300_fn_298(int x) { return x + 298; }
