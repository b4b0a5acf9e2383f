int bench300_fn_156(int x);
int bench300_fn_156(int x) { return x + 156; }
