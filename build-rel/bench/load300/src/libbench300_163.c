int bench300_fn_163(int x);
int bench300_fn_163(int x) { return x + 163; }
