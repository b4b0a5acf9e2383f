int bench300_fn_221(int x);
int bench300_fn_221(int x) { return x + 221; }
