package wrapper

import (
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/ir"
)

// EmitLL writes the registration as LLVM IR text. For the LLVM20 ABI the
// module is what llvm-offload-wrapper-22 builds (llvm-dis of its bitcode and
// of this text, assembled, agree); for Legacy OpenMP it is
// clang-offload-wrapper's module. It is written for the LLVM of o.LLVM:
// with typed pointers, as clang-offload-wrapper 14 writes them, for LLVM
// 14 and earlier. clang compiles it directly: clang -c -x ir wrapper.ll.
func EmitLL(w io.Writer, imgs []Image, o Options) error {
	m, err := readerModule(imgs, o)
	if err != nil {
		return err
	}
	return m.WriteText(w)
}

// EmitBC writes the registration as LLVM bitcode: the module EmitLL
// writes as text, which llvm-dis prints as it prints llvm-offload-wrapper-22's
// (or, for Legacy OpenMP, clang-offload-wrapper's) bitcode. Images stream
// from their readers.
func EmitBC(w io.Writer, imgs []Image, o Options) error {
	m, err := readerModule(imgs, o)
	if err != nil {
		return err
	}
	return m.WriteBitcode(w)
}

// readerModule is the module of the registration of imgs, to be written
// for the LLVM o asks for.
func readerModule(imgs []Image, o Options) (*ir.Module, error) {
	p, err := newPlan(imgs, o)
	if err != nil {
		return nil, err
	}
	v := o.LLVM
	switch {
	case v == 0 && o.ABI == Legacy:
		v = 14
	case v == 0:
		v = 20
	case v < ir.OldestReader:
		return nil, fmt.Errorf("%w %d: the oldest written for is %d", ErrLLVM, v, ir.OldestReader)
	case o.ABI == LLVM20 && v < 20:
		return nil, fmt.Errorf("%w %d: the LLVM20 entry ABI is LLVM 20's", ErrLLVM, v)
	}
	m := buildModule(p)
	if v < 19 {
		m.Reader = v
	}
	return m, nil
}
