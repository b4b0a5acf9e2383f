int bench300_fn_288(int x);
int bench300_fn_288(int x) { return x + 288; }
