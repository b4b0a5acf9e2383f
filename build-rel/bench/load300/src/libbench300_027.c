int bench300_fn_027(int x);
int bench300_fn_027(int x) { return x + 27; }
