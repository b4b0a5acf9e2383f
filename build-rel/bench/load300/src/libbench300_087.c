int bench300_fn_087(int x);
int bench300_fn_087(int x) { return x + 87; }
