int bench300_fn_107(int x);
int bench300_fn_107(int x) { return x + 107; }
