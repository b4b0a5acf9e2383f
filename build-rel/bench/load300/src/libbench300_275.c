int bench300_fn_275(int x);
int bench300_fn_275(int x) { return x + 275; }
