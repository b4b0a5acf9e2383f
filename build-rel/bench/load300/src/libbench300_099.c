int bench300_fn_099(int x);
int bench300_fn_099(int x) { return x + 99; }
