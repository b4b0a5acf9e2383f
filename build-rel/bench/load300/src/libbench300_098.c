int bench300_fn_098(int x);
int bench300_fn_098(int x) { return x + 98; }
