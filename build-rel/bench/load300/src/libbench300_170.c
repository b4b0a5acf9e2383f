int bench300_fn_170(int x);
int bench300_fn_170(int x) { return x + 170; }
