int bench300_fn_229(int x);
int bench300_fn_229(int x) { return x + 229; }
