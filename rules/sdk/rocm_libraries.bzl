"""ROCm's libraries: the targets of @offload_rocm besides :rocm.

Named as XLA's @local_config_rocm//rocm:* names them. Every library's
shared object needs the HIP runtime (libamdhip64); hipRAND needs rocRAND,
hipSPARSE rocSPARSE. rocRAND's and rocSPARSE's shared objects carry device
code for a fixed list of processors (device_code = True): the repository
reads it with `offload inspect` and records it (rocm_code_objects.bzl).
"""

load(":libraries.bzl", "library")

_ELSEWHERE = "use a ROCm installation that has it (offload_rocm_repository(path = \"/opt/rocm-<version>\") or urls)"

def _rocm(name, debian = None, debian_sid = None, device_code = False, **kwargs):
    """One library; debian_sid: its packages in Debian sid (ROCm 6.4), where Debian 12 has none."""
    absent = None
    if not debian:
        absent = "Debian 12 has no package for it; " + _ELSEWHERE
        if debian_sid:
            absent += "; Debian sid: apt-get install " + " ".join(debian_sid)
    return struct(lib = library(name, debian = debian, absent = absent, **kwargs), device_code = device_code)

_ENTRIES = [
    _rocm("hip_runtime", header_dirs = ["hip"], shared = "libamdhip64.so", defines = ["__HIP_PLATFORM_AMD__"], debian = ["libamdhip64-dev"]),
    _rocm("rocprim", header_dirs = ["rocprim"], deps = ["hip_runtime"], debian = ["librocprim-dev"]),
    _rocm("hipcub", header_dirs = ["hipcub"], deps = ["rocprim"], debian_sid = ["libhipcub-dev"]),
    _rocm("rocrand", header_dirs = ["rocrand"], shared = "librocrand.so", deps = ["hip_runtime"], debian = ["librocrand-dev"], device_code = True),
    _rocm("hiprand", header_dirs = ["hiprand"], shared = "libhiprand.so", deps = ["rocrand", "hip_runtime"], debian = ["libhiprand-dev"]),
    _rocm("rocsparse", header_dirs = ["rocsparse"], shared = "librocsparse.so", deps = ["hip_runtime"], debian = ["librocsparse-dev"], device_code = True),
    _rocm("hipsparse", header_dirs = ["hipsparse"], shared = "libhipsparse.so", deps = ["rocsparse", "hip_runtime"], debian = ["libhipsparse-dev"]),
    _rocm("rocblas", header_dirs = ["rocblas"], shared = "librocblas.so", deps = ["hip_runtime"], debian_sid = ["librocblas-dev"], device_code = True),
    _rocm("hipblas", header_dirs = ["hipblas"], shared = "libhipblas.so", deps = ["rocblas", "hip_runtime"], debian_sid = ["libhipblas-dev"]),
]

ROCM_LIBRARIES = [e.lib for e in _ENTRIES]

# The libraries whose shared objects hold device code (code objects per processor).
ROCM_DEVICE_CODE_LIBRARIES = [e.lib.name for e in _ENTRIES if e.device_code]

# include/ directories the libraries' headers live in (besides hip/, which the toolchain links).
ROCM_HEADER_DIRS = [d for e in _ENTRIES for d in e.lib.header_dirs if d != "hip"]
