int bench300_fn_168(int x);
int bench300_fn_168(int x) { return x + 168; }
