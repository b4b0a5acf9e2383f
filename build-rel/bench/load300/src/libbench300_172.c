int bench300_fn_172(int x);
int bench300_fn_172(int x) { return x + 172; }
