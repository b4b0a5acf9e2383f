int bench300_fn_028(int x);
int bench300_fn_028(int x) { return x + 28; }
