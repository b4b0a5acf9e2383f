int bench300_fn_217(int x);
int bench300_fn_217(int x) { return x + 217; }
