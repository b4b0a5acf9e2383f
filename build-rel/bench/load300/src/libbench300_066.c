int bench300_fn_066(int x);
int bench300_fn_066(int x) { return x + 66; }
