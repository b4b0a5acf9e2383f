int bench300_fn_220(int x);
int bench300_fn_220(int x) { return x + 220; }
