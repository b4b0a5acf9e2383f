int bench300_fn_140(int x);
int bench300_fn_140(int x) { return x + 140; }
