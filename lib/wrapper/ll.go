package wrapper

import "io"

// EmitLL writes the registration as LLVM IR text. For the LLVM20 ABI the
// module is what llvm-offload-wrapper-22 builds (llvm-dis of its bitcode and
// of this text, assembled, agree); for Legacy OpenMP it is
// clang-offload-wrapper's module, written with opaque pointers. clang
// compiles it directly: clang -c -x ir wrapper.ll.
func EmitLL(w io.Writer, imgs []Image, o Options) error {
	p, err := newPlan(imgs, o)
	if err != nil {
		return err
	}
	return buildModule(p).WriteText(w)
}

// EmitBC writes the registration as LLVM bitcode: the module EmitLL
// writes as text, which llvm-dis prints as it prints llvm-offload-wrapper-22's
// (or, for Legacy OpenMP, clang-offload-wrapper's) bitcode. Images stream
// from their readers.
func EmitBC(w io.Writer, imgs []Image, o Options) error {
	p, err := newPlan(imgs, o)
	if err != nil {
		return err
	}
	return buildModule(p).WriteBitcode(w)
}
