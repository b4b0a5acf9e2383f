int bench300_fn_161(int x);
int bench300_fn_161(int x) { return x + 161; }
