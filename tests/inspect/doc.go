// Package inspect holds the integration tests of `offload inspect`,
// `offload extract` and `offload convert`: they build the offload binary
// once, run it on containers made by LLVM 22's tools (clang++-22 HIP
// objects from both drivers, clang-offload-bundler-22 bundles and CCOBs,
// llvm-offload-binary-22 packages, llvm-ar-22 archives) and on hand-made
// ones (zlib CCOBs, corrupt and sparse files), and check every entry they
// report or write against what clang-offload-bundler-22, llvm-objdump-22
// and llvm-offload-binary-22 say about the same bytes. The tests skip,
// loudly, when the LLVM tools are not installed.
package inspect
