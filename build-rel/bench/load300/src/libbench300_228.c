int bench300_fn_228(int x);
int bench300_fn_228(int x) { return x + 228; }
