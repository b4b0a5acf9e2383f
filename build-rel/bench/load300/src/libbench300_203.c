int bench300_fn_203(int x);
int bench300_fn_203(int x) { return x + 203; }
