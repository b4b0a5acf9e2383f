int bench300_fn_092(int x);
int bench300_fn_092(int x) { return x + 92; }
