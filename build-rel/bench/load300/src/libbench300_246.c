int bench300_fn_246(int x);
int bench300_fn_246(int x) { return x + 246; }
