int bench300_fn_024(int x);
int bench300_fn_024(int x) { return x + 24; }
