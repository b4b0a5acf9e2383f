int bench300_fn_042(int x);
int bench300_fn_042(int x) { return x + 42; }
