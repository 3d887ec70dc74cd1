// Package bundler holds the integration tests of `offload bundler`: they
// build the offload binary once, run it and LLVM 22's clang-offload-bundler
// on the same seeded random inputs, and compare what both write, byte for
// byte where LLVM is right and against hand-derived expectations where it
// crashes. The tests skip, loudly, when the LLVM tools are not installed.
package bundler
