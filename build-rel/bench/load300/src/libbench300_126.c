int bench300_fn_126(int x);
int bench300_fn_126(int x) { return x + 126; }
