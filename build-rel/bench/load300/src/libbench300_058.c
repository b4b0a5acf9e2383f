int bench300_fn_058(int x);
int bench300_fn_058(int x) { return x + 58; }
