int bench300_fn_053(int x);
int bench300_fn_053(int x) { return x + 53; }
