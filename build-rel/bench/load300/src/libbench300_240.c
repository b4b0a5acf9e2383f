int bench300_fn_240(int x);
int bench300_fn_240(int x) { return x + 240; }
