int bench300_fn_055(int x);
int bench300_fn_055(int x) { return x + 55; }
