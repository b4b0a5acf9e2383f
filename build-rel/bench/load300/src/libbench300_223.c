int bench300_fn_223(int x);
int bench300_fn_223(int x) { return x + 223; }
