int bench300_fn_075(int x);
int bench300_fn_075(int x) { return x + 75; }
