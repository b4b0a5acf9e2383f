int bench300_fn_067(int x);
int bench300_fn_067(int x) { return x + 67; }
