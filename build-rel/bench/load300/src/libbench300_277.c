int bench300_fn_277(int x);
int bench300_fn_277(int x) { return x + 277; }
