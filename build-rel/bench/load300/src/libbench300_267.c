int bench300_fn_267(int x);
int bench300_fn_267(int x) { return x + 267; }
