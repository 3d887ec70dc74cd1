// Scales host[0..n) by s on the GPU: 0 done, 1 failed, 2 no GPU; *error
// is the CUDA runtime's message.
int Scale(float* host, int n, float s, const char** error);
