int bench300_fn_296(int x);
int bench300_fn_296(int x) { return x + 296; }
