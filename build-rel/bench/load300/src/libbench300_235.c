int bench300_fn_235(int x);
int bench300_fn_235(int x) { return x + 235; }
