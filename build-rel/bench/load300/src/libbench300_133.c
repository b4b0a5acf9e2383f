int bench300_fn_133(int x);
int bench300_fn_133(int x) { return x + 133; }
