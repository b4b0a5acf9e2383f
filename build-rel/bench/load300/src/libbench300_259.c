int bench300_fn_259(int x);
int bench300_fn_259(int x) { return x + 259; }
