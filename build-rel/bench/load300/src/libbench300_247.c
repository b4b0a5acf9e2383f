int bench300_fn_247(int x);
int bench300_fn_247(int x) { return x + 247; }
