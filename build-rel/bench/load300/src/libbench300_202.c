int bench300_fn_202(int x);
int bench300_fn_202(int x) { return x + 202; }
