int bench300_fn_226(int x);
int bench300_fn_226(int x) { return x + 226; }
