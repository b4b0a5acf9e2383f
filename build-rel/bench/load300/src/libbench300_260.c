int bench300_fn_260(int x);
int bench300_fn_260(int x) { return x + 260; }
