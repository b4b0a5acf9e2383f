int bench300_fn_084(int x);
int bench300_fn_084(int x) { return x + 84; }
