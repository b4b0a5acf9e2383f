int bench300_fn_139(int x);
int bench300_fn_139(int x) { return x + 139; }
