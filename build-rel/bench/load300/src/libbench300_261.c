int bench300_fn_261(int x);
int bench300_fn_261(int x) { return x + 261; }
