// rules_offload: the device library declarations the HIP headers expect
// clang's HIP wrapper to make, and clang 23's no longer does.
//
// The HIP headers (ROCm 6.4's amd_device_functions.h, amd_hip_fp16.h,
// amd_hip_bf16.h) call __ocml_floor_f64, __ocml_rint_f64, __ocml_ceil_f64,
// the _f16 and _2f16 functions and __ockl_fdot2 without declaring them
// when clang's wrapper is there (__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__):
// clang's __clang_hip_libdevice_declares.h did, up to LLVM 22. The same
// headers declare them themselves for a compiler without the wrapper
// (math_fwd.h, hip_fp16_math_fwd.h). This header has them do that: the
// declarations are the installed ROCm's own, whatever its version, not a
// list kept here. The offload_clang_toolchain force-includes it into HIP
// compiles (device and host halves) when its clang is 23 or later;
// -DOFFLOAD_NO_HIP_WRAPPER_DECLS turns it off.
#if defined(__HIP__) && !defined(OFFLOAD_NO_HIP_WRAPPER_DECLS) && defined(__has_include)
#if __has_include(<hip/amd_detail/math_fwd.h>) && __has_include(<hip/amd_detail/hip_fp16_math_fwd.h>)
#pragma push_macro("__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__")
#undef __CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__
#include <hip/amd_detail/math_fwd.h>
#include <hip/amd_detail/hip_fp16_math_fwd.h>
#pragma pop_macro("__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__")
#endif
#endif
