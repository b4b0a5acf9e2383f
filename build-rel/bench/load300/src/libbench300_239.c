int bench300_fn_239(int x);
int bench300_fn_239(int x) { return x + 239; }
