int bench300_fn_263(int x);
int bench300_fn_263(int x) { return x + 263; }
