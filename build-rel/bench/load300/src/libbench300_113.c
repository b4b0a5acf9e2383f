int bench300_fn_113(int x);
int bench300_fn_113(int x) { return x + 113; }
