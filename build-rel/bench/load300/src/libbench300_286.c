int bench300_fn_286(int x);
int bench300_fn_286(int x) { return x + 286; }
