int bench300_fn_103(int x);
int bench300_fn_103(int x) { return x + 103; }
