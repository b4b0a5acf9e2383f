int bench300_fn_086(int x);
int bench300_fn_086(int x) { return x + 86; }
