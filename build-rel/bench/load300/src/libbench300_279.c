int bench300_fn_279(int x);
int bench300_fn_279(int x) { return x + 279; }
