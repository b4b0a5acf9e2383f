int bench300_fn_281(int x);
int bench300_fn_281(int x) { return x + 281; }
