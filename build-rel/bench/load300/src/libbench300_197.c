int bench300_fn_197(int x);
int bench300_fn_197(int x) { return x + 197; }
