int bench300_fn_276(int x);
int bench300_fn_276(int x) { return x + 276; }
