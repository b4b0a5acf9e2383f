int bench300_fn_216(int x);
int bench300_fn_216(int x) { return x + 216; }
