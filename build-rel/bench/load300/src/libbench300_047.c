int bench300_fn_047(int x);
int bench300_fn_047(int x) { return x + 47; }
