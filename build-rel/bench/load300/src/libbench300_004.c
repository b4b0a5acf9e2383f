int bench300_fn_004(int x);
int bench300_fn_004(int x) { return x + 4; }
