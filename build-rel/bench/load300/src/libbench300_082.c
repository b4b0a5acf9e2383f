int bench300_fn_082(int x);
int bench300_fn_082(int x) { return x + 82; }
