int bench300_fn_195(int x);
int bench300_fn_195(int x) { return x + 195; }
