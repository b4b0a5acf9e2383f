int bench300_fn_187(int x);
int bench300_fn_187(int x) { return x + 187; }
