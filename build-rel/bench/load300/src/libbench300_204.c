int bench300_fn_204(int x);
int bench300_fn_204(int x) { return x + 204; }
