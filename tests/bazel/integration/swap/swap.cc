// Builds unchanged as a cc_library, hip_library, cuda_library and
// offload_bundle (tests/bazel/integration/BUILD.bazel, "swap"): every way a
// cc_library's source finds headers and macros.
#include "integration/swap/api/api.h"        // the workspace root (-iquote .)
#include "integration/swap/api/generated.h"  // the bin directory (-iquote bazel-out/.../bin)
#include "swap/api.h"                        // include_prefix, strip_include_prefix
#include "swap/generated.h"                  // a generated header under the prefix
#include "swapbase/base.h"                   // a dep's prefixed header
#include "impl.h"                            // implementation_deps' includes
#include "inc_header.h"                      // the rule's own includes

static_assert(GENERATED_VALUE == 7, "generated header");
static_assert(BASE_VALUE == 3, "dep header");
static_assert(BASE_DEFINE == 4, "dep's defines");
static_assert(IMPL_VALUE == 13, "implementation_deps");
static_assert(IMPL_DEFINE == 14, "implementation_deps' defines");
static_assert(INC_VALUE == 11, "includes");
static_assert(API_DEFINE == 5, "defines");
static_assert(LOCAL_ONLY == 1, "local_defines");

#if defined(__HIP__)
#include <hip/hip_runtime.h>  // the launch API a kernel's host stub calls
#endif
#if defined(__HIP__) || defined(__CUDA__)
__global__ void swap_kernel(int *out) { *out = GENERATED_VALUE + BASE_VALUE; }
#endif

int swap_value() {
  int sum = 0;
#define SWAP_ENTRY(n) sum += n;
#include "integration/swap/api/table.inc"
#undef SWAP_ENTRY
  return sum + INC_VALUE;
}
