int bench300_fn_241(int x);
int bench300_fn_241(int x) { return x + 241; }
