int bench300_fn_257(int x);
int bench300_fn_257(int x) { return x + 257; }
