int bench300_fn_026(int x);
int bench300_fn_026(int x) { return x + 26; }
