int bench300_fn_293(int x);
int bench300_fn_293(int x) { return x + 293; }
