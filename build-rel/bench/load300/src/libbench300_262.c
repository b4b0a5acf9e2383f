int bench300_fn_262(int x);
int bench300_fn_262(int x) { return x + 262; }
