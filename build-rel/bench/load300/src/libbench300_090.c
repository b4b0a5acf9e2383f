int bench300_fn_090(int x);
int bench300_fn_090(int x) { return x + 90; }
