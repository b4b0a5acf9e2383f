int bench300_fn_089(int x);
int bench300_fn_089(int x) { return x + 89; }
