int bench300_fn_173(int x);
int bench300_fn_173(int x) { return x + 173; }
