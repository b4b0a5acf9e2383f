int bench300_fn_012(int x);
int bench300_fn_012(int x) { return x + 12; }
