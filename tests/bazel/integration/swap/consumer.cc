// A dependent of each swapped library: sees what a cc_library exports.
#include "swap/api.h"
#include "swapbase/base.h"
#include "inc_header.h"

static_assert(API_DEFINE == 5, "defines are public");
static_assert(BASE_DEFINE == 4, "deps' defines are public");
static_assert(INC_VALUE == 11, "includes are public");
#ifdef LOCAL_ONLY
#error "local_defines leaked to a dependent"
#endif
#ifdef CHECK_IMPLEMENTATION_DEPS
#ifdef IMPL_DEFINE
#error "implementation_deps' defines leaked to a dependent"
#endif
#if __has_include("impl.h")
#error "implementation_deps' includes leaked to a dependent"
#endif
#endif

int consumer_value() { return swap_value(); }
