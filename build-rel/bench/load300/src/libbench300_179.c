int bench300_fn_179(int x);
int bench300_fn_179(int x) { return x + 179; }
