int bench300_fn_266(int x);
int bench300_fn_266(int x) { return x + 266; }
