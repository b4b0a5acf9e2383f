int bench300_fn_243(int x);
int bench300_fn_243(int x) { return x + 243; }
