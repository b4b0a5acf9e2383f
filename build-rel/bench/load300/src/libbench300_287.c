int bench300_fn_287(int x);
int bench300_fn_287(int x) { return x + 287; }
