int bench300_fn_032(int x);
int bench300_fn_032(int x) { return x + 32; }
