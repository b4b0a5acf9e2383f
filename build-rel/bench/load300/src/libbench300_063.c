int bench300_fn_063(int x);
int bench300_fn_063(int x) { return x + 63; }
