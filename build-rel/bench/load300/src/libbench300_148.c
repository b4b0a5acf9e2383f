int bench300_fn_148(int x);
int bench300_fn_148(int x) { return x + 148; }
