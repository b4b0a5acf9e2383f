int bench300_fn_206(int x);
int bench300_fn_206(int x) { return x + 206; }
