int bench300_fn_200(int x);
int bench300_fn_200(int x) { return x + 200; }
