int bench300_fn_211(int x);
int bench300_fn_211(int x) { return x + 211; }
