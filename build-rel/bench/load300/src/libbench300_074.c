int bench300_fn_074(int x);
int bench300_fn_074(int x) { return x + 74; }
