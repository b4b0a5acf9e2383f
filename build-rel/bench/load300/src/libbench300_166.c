int bench300_fn_166(int x);
int bench300_fn_166(int x) { return x + 166; }
