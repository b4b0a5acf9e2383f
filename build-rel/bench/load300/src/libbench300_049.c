int bench300_fn_049(int x);
int bench300_fn_049(int x) { return x + 49; }
