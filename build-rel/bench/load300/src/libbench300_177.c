int bench300_fn_177(int x);
int bench300_fn_177(int x) { return x + 177; }
