int bench300_fn_268(int x);
int bench300_fn_268(int x) { return x + 268; }
