int bench300_fn_038(int x);
int bench300_fn_038(int x) { return x + 38; }
