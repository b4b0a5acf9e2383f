int bench300_fn_119(int x);
int bench300_fn_119(int x) { return x + 119; }
