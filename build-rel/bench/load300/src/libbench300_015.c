int bench300_fn_015(int x);
int bench300_fn_015(int x) { return x + 15; }
