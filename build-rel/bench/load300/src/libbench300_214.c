int bench300_fn_214(int x);
int bench300_fn_214(int x) { return x + 214; }
