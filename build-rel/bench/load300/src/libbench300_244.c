int bench300_fn_244(int x);
int bench300_fn_244(int x) { return x + 244; }
