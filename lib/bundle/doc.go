// Package bundle reads and writes the uncompressed container formats of
// clang-offload-bundler (LLVM 22): the binary format that starts with
// "__CLANG_OFFLOAD_BUNDLE__" (used for bc, gch, ast and for o/a files whose
// host input is not an object file) and the text format used for
// preprocessed sources, LLVM IR, assembly and dependency files.
//
// Readers treat their input as hostile: every size and offset is checked
// against the input before use, and duplicate entry IDs are reported
// (LLVM keeps only the last one). Writers produce the same bytes as
// clang-offload-bundler-22 for the same IDs, inputs and alignment, and stream
// payloads, so memory use does not depend on payload size.
//
// Entry IDs are stored as given. LLVM writes the standardized form of each
// target (for example "host-x86_64-unknown-linux-gnu-" with its trailing
// '-'); callers that want LLVM's exact bytes must standardize IDs first.
package bundle
