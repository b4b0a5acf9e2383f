int bench300_fn_284(int x);
int bench300_fn_284(int x) { return x + 284; }
