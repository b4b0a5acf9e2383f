int bench300_fn_271(int x);
int bench300_fn_271(int x) { return x + 271; }
