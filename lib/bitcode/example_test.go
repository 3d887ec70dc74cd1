package bitcode_test

import (
	"fmt"
	"os"

	"github.com/rules-offload/rules_offload/lib/bitcode"
)

// The archive symbol table LLVM writes for a member built with
// `clang++ -x hip --cuda-device-only -fgpu-rdc -emit-llvm -c`.
func ExampleArchiveSymbols() {
	f, err := os.Open("testdata/clang22-nvptx64-sm52-cuda-rdc.bc")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		panic(err)
	}
	syms, err := bitcode.ArchiveSymbols(f, fi.Size())
	if err != nil {
		panic(err)
	}
	for _, s := range syms {
		fmt.Println(s)
	}
	// Output:
	// _Z6dev_fni
	// _Z8dev_weaki
	// _Z4kernPi
	// _Z5tkernIfEvPT_
	// dev_var
	// const_var
	// _Z9dev_aliasi
}
