// The contract between a GPU test program's device half (a cuda_library)
// and its plain C++ main (gpu_main.cc): RunGpuTest runs the test and says
// what happened; main prints it and exits 0 (passed), 1 (wrong or failed)
// or 2 (no GPU: the runtime's own error), the examples' convention.
#ifndef RULES_OFFLOAD_TESTS_GPU_TEST_H_
#define RULES_OFFLOAD_TESTS_GPU_TEST_H_

enum GpuTestStatus { kGpuPassed = 0, kGpuFailed = 1, kGpuNoDevice = 2 };

// The test's name, as main prints it.
extern const char* const kGpuTestName;

// Runs the test. *detail is what main prints after the outcome: what was
// checked, or the first mismatch, or the runtime's error string. It points
// at static storage or a string literal.
GpuTestStatus RunGpuTest(const char** detail);

#endif  // RULES_OFFLOAD_TESTS_GPU_TEST_H_
