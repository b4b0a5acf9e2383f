int bench300_fn_146(int x);
int bench300_fn_146(int x) { return x + 146; }
