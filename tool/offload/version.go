package main

// version is the offload tool's version; LLVMVersion is the LLVM release
// whose tools it matches.
const (
	version     = "0.1.0"
	llvmVersion = "22.1.8"
)
