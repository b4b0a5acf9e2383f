int bench300_fn_124(int x);
int bench300_fn_124(int x) { return x + 124; }
