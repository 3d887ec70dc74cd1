// Package fatbin holds the integration tests of `offload fatbin`: they
// build the offload binary once, give it and CUDA 11.8's fatbinary the
// same command lines (the one clang-22's CUDA driver runs, and variations
// on it) over cubins from ptxas and PTX from nvcc and clang-22, and
// require the same bytes; where the bytes cannot be compared, cuobjdump
// must list both alike. clang-22's driver then runs offload in place of
// fatbinary and must embed the same fat binary. The tests skip, loudly,
// when the CUDA tools are not installed.
package fatbin
