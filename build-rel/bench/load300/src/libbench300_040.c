int bench300_fn_040(int x);
int bench300_fn_040(int x) { return x + 40; }
