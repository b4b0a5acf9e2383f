int bench300_fn_088(int x);
int bench300_fn_088(int x) { return x + 88; }
