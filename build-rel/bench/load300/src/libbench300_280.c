int bench300_fn_280(int x);
int bench300_fn_280(int x) { return x + 280; }
