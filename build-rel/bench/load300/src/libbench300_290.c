int bench300_fn_290(int x);
int bench300_fn_290(int x) { return x + 290; }
