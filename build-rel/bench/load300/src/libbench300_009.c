int bench300_fn_009(int x);
int bench300_fn_009(int x) { return x + 9; }
