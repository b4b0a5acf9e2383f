int bench300_fn_264(int x);
int bench300_fn_264(int x) { return x + 264; }
