int bench300_fn_121(int x);
int bench300_fn_121(int x) { return x + 121; }
