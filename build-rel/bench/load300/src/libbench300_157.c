int bench300_fn_157(int x);
int bench300_fn_157(int x) { return x + 157; }
