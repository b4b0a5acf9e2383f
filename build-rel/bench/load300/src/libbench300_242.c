int bench300_fn_242(int x);
int bench300_fn_242(int x) { return x + 242; }
