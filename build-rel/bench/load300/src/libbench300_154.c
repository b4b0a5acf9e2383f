int bench300_fn_154(int x);
int bench300_fn_154(int x) { return x + 154; }
