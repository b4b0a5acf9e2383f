int bench300_fn_021(int x);
int bench300_fn_021(int x) { return x + 21; }
