int bench300_fn_219(int x);
int bench300_fn_219(int x) { return x + 219; }
