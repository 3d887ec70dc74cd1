int dev_fn(int x) { return x + 1; }
int dev_var = 3;
