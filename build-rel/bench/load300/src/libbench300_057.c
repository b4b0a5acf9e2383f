int bench300_fn_057(int x);
int bench300_fn_057(int x) { return x + 57; }
