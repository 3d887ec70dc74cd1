"""Public API of rules_offload.

Only loads and re-exports: the implementation under private/ may move
without breaking users. See each symbol's docs for its attributes.
"""

load("//rules/private:flags.bzl", _offload_targets_flag = "offload_targets_flag")
load(
    "//rules/private:macros.bzl",
    _cuda_library = "cuda_library",
    _hip_library = "hip_library",
    _offload_bundle = "offload_bundle",
    _offload_package = "offload_package",
    _openmp_library = "openmp_library",
)
load(
    "//rules/private:providers.bzl",
    _OffloadBundleInfo = "OffloadBundleInfo",
    _OffloadClangInfo = "OffloadClangInfo",
    _OffloadCudaInfo = "OffloadCudaInfo",
    _OffloadDeviceArchiveInfo = "OffloadDeviceArchiveInfo",
    _OffloadImageInfo = "OffloadImageInfo",
    _OffloadLibraryInfo = "OffloadLibraryInfo",
    _OffloadLlvmInfo = "OffloadLlvmInfo",
    _OffloadPackageInfo = "OffloadPackageInfo",
    _OffloadRdcInfo = "OffloadRdcInfo",
    _OffloadRocmInfo = "OffloadRocmInfo",
    _OffloadTargetsInfo = "OffloadTargetsInfo",
    _OffloadToolInfo = "OffloadToolInfo",
)
load("//rules/private:toolchain.bzl", _offload_clang_toolchain = "offload_clang_toolchain", _offload_toolchain = "offload_toolchain")
load("//rules/private/rules:device_archive.bzl", _device_archive = "device_archive")
load("//rules/private/rules:offload_bundle.bzl", _offload_bundle_rule = "offload_bundle_rule")
load("//rules/private/rules:offload_compile_commands.bzl", _offload_compile_commands = "offload_compile_commands")
load("//rules/private/rules:offload_cuda.bzl", _offload_cuda = "offload_cuda")
load("//rules/private/rules:offload_device_link.bzl", _offload_device_link = "offload_device_link")
load("//rules/private/rules:offload_library.bzl", _offload_library = "offload_library")
load("//rules/private/rules:offload_llvm.bzl", _offload_llvm = "offload_llvm")
load("//rules/private/rules:offload_package.bzl", _offload_package_rule = "offload_package_rule")
load("//rules/private/rules:offload_registration_test.bzl", _offload_registration_test = "offload_registration_test")
load("//rules/private/rules:offload_rocm.bzl", _offload_rocm = "offload_rocm")
load("//rules/private/rules:offload_wrapper.bzl", _offload_wrapper = "offload_wrapper")

# Rules (offload_bundle and offload_package are macros over the *_rule
# rules that take images as {target: label}).
offload_bundle = _offload_bundle
offload_package = _offload_package
device_archive = _device_archive
offload_wrapper = _offload_wrapper
offload_library = _offload_library
hip_library = _hip_library
cuda_library = _cuda_library
openmp_library = _openmp_library
offload_device_link = _offload_device_link
offload_registration_test = _offload_registration_test
offload_bundle_rule = _offload_bundle_rule
offload_package_rule = _offload_package_rule

# Editors (clangd).
offload_compile_commands = _offload_compile_commands

# Toolchains and settings.
offload_toolchain = _offload_toolchain
offload_clang_toolchain = _offload_clang_toolchain
offload_targets_flag = _offload_targets_flag

# SDK installations (written by the repository rules of repositories.bzl).
offload_llvm = _offload_llvm
offload_rocm = _offload_rocm
offload_cuda = _offload_cuda

# Providers (documented in private/providers.bzl).
OffloadImageInfo = _OffloadImageInfo
OffloadBundleInfo = _OffloadBundleInfo
OffloadPackageInfo = _OffloadPackageInfo
OffloadLibraryInfo = _OffloadLibraryInfo
OffloadRdcInfo = _OffloadRdcInfo
OffloadDeviceArchiveInfo = _OffloadDeviceArchiveInfo
OffloadTargetsInfo = _OffloadTargetsInfo
OffloadClangInfo = _OffloadClangInfo
OffloadToolInfo = _OffloadToolInfo
OffloadLlvmInfo = _OffloadLlvmInfo
OffloadRocmInfo = _OffloadRocmInfo
OffloadCudaInfo = _OffloadCudaInfo
