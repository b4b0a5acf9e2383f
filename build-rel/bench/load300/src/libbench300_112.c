int bench300_fn_112(int x);
int bench300_fn_112(int x) { return x + 112; }
