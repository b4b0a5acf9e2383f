int bench300_fn_046(int x);
int bench300_fn_046(int x) { return x + 46; }
