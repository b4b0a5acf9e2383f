int bench300_fn_077(int x);
int bench300_fn_077(int x) { return x + 77; }
