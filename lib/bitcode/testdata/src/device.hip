__attribute__((device)) int dev_var = 1;
__attribute__((constant)) int const_var = 2;
__attribute__((device)) int dev_fn(int x) { return x + dev_var; }
__attribute__((device)) static int dev_static(int x) { return x; }
__attribute__((device)) __attribute__((weak)) int dev_weak(int x) { return dev_static(x); }
extern __attribute__((device)) int dev_extern(int);
__attribute__((global)) void kern(int *p) { *p = dev_fn(1) + dev_weak(2) + dev_extern(3); }
template <class T> __attribute__((global)) void tkern(T *p) { *p = 0; }
template __attribute__((global)) void tkern<float>(float*);
__attribute__((device)) int dev_alias(int) __attribute__((alias("_Z6dev_fni")));
