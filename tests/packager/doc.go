// Package packager holds the integration tests of `offload packager` (the
// llvm-offload-binary / clang-offload-packager drop-in) and `offload embed`:
// real clang drivers (clang++-22 for HIP with the new offload driver,
// clang-16 for OpenMP) run with our binary in their -B directory and must
// give what LLVM's own packager gives, or a program whose target region
// really runs offloaded; objects from gcc and clang get a .llvm.offloading
// section equal to the one clang's -fembed-offload-object writes. The tests
// skip, loudly, when the LLVM tools are not installed.
package packager
