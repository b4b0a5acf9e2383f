int bench300_fn_050(int x);
int bench300_fn_050(int x) { return x + 50; }
