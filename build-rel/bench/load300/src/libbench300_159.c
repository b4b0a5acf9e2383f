int bench300_fn_159(int x);
int bench300_fn_159(int x) { return x + 159; }
