int bench300_fn_106(int x);
int bench300_fn_106(int x) { return x + 106; }
