int bench300_fn_078(int x);
int bench300_fn_078(int x) { return x + 78; }
