int bench300_fn_017(int x);
int bench300_fn_017(int x) { return x + 17; }
