int bench300_fn_178(int x);
int bench300_fn_178(int x) { return x + 178; }
