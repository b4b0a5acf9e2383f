int bench300_fn_056(int x);
int bench300_fn_056(int x) { return x + 56; }
