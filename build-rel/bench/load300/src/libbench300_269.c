int bench300_fn_269(int x);
int bench300_fn_269(int x) { return x + 269; }
