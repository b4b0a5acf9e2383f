int bench300_fn_213(int x);
int bench300_fn_213(int x) { return x + 213; }
