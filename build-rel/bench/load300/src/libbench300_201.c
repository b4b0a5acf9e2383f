int bench300_fn_201(int x);
int bench300_fn_201(int x) { return x + 201; }
