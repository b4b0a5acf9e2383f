int bench300_fn_236(int x);
int bench300_fn_236(int x) { return x + 236; }
