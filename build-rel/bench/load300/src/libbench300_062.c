int bench300_fn_062(int x);
int bench300_fn_062(int x) { return x + 62; }
