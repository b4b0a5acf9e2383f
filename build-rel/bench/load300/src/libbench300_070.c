int bench300_fn_070(int x);
int bench300_fn_070(int x) { return x + 70; }
