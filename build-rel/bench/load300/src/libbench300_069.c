int bench300_fn_069(int x);
int bench300_fn_069(int x) { return x + 69; }
