int bench300_fn_044(int x);
int bench300_fn_044(int x) { return x + 44; }
