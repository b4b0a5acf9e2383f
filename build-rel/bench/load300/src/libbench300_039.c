int bench300_fn_039(int x);
int bench300_fn_039(int x) { return x + 39; }
