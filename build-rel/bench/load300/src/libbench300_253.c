int bench300_fn_253(int x);
int bench300_fn_253(int x) { return x + 253; }
