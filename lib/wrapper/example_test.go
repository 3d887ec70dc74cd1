package wrapper_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rules-offload/rules_offload/lib/wrapper"
)

// A CUDA fat binary registered through LLVM IR; the module is the one
// llvm-offload-wrapper-22 builds.
func ExampleEmitLL() {
	fatbin := []byte("\x50\xed\x55\xba\x01\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	var ir bytes.Buffer
	err := wrapper.EmitLL(&ir, []wrapper.Image{{Data: bytes.NewReader(fatbin), Size: int64(len(fatbin))}},
		wrapper.Options{Kind: wrapper.CUDA, Triple: "x86_64-pc-linux-gnu"})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(ir.String(), "\n") {
		if strings.HasPrefix(line, "@llvm.global_ctors") || strings.HasPrefix(line, "@.fatbin_wrapper") {
			fmt.Println(line)
		}
	}
	// Output:
	// @.fatbin_wrapper = internal constant %fatbin_wrapper { i32 1180844977, i32 1, ptr @.fatbin_image, ptr null }, section ".nvFatBinSegment", align 8
	// @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.cuda.fatbin_reg, ptr null }]
}
