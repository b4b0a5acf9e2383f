int bench300_fn_096(int x);
int bench300_fn_096(int x) { return x + 96; }
