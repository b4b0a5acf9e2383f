int bench300_fn_225(int x);
int bench300_fn_225(int x) { return x + 225; }
