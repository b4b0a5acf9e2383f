int bench300_fn_071(int x);
int bench300_fn_071(int x) { return x + 71; }
