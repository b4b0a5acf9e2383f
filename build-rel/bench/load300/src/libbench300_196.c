int bench300_fn_196(int x);
int bench300_fn_196(int x) { return x + 196; }
