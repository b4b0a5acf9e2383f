int bench300_fn_073(int x);
int bench300_fn_073(int x) { return x + 73; }
