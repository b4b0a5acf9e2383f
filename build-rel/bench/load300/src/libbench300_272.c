int bench300_fn_272(int x);
int bench300_fn_272(int x) { return x + 272; }
