int bench300_fn_097(int x);
int bench300_fn_097(int x) { return x + 97; }
