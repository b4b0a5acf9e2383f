int bench300_fn_085(int x);
int bench300_fn_085(int x) { return x + 85; }
