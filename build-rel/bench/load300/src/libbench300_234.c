int bench300_fn_234(int x);
int bench300_fn_234(int x) { return x + 234; }
