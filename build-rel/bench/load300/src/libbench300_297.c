int bench300_fn_297(int x);
int bench300_fn_297(int x) { return x + 297; }
