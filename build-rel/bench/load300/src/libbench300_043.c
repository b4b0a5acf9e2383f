int bench300_fn_043(int x);
int bench300_fn_043(int x) { return x + 43; }
