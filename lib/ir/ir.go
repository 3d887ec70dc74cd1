// Package ir describes small LLVM IR modules, the kind a registration
// wrapper needs (named structs, global variables with constant initializers,
// function declarations and a few dozen instructions), and writes them as
// LLVM bitcode (llvm-dis, clang -c, llvm-link) or as LLVM assembly
// (WriteText), for the oldest LLVM that is to read them (Module.Reader):
// LLVM 19 and later by default, LLVM 15 to 18 (the constant GEP records
// they know), or LLVM 13 and 14 (typed pointers; typed.go).
//
// The writer follows llvm/docs/BitCodeFormat.rst and the records of LLVM's
// own BitcodeWriter, with simplifications that LLVM's reader accepts:
// records are written unabbreviated (but for blobs), every constant lives
// in the module's constants block, and there is no function index (the
// reader finds function bodies in order). So the bitcode is not LLVM's byte
// for byte, but it reads back as the same module. Images stream: a byte
// array initializer is copied from its io.ReaderAt into a blob, so memory
// does not grow with the images' size.
package ir

import (
	"errors"
	"fmt"
)

// Linkage is a global value's linkage.
type Linkage int

const (
	External Linkage = iota
	Internal
	Appending
	ExternWeak
	Weak
	WeakODR
)

// Visibility is a global value's visibility.
type Visibility int

const (
	Default Visibility = iota
	Hidden
)

// Module is a module of global variables and functions, kept in the order
// they were added, which is the order LLVM prints them in.
type Module struct {
	SourceFilename string
	Triple         string
	Globals        []*Global
	Funcs          []*Function
	// Reader is the oldest LLVM major version that must read what is
	// written; 0 means LLVM 19 or later. See ReaderForms.
	Reader int
}

// Global is a global variable. Its value is a pointer to ValueType.
type Global struct {
	Name        string
	ValueType   *Type
	Constant    bool
	Linkage     Linkage
	Visibility  Visibility
	UnnamedAddr bool
	Init        Constant // nil for a declaration
	Section     string
	Align       uint64 // bytes; 0 for none
	ptrT        *Type  // its typed pointer type, in a module lowered for LLVM 14
}

// Function is a declared or defined function. Its value is a pointer.
type Function struct {
	Name       string
	Sig        *Type
	Linkage    Linkage
	Visibility Visibility
	Section    string
	Params     []*Param
	Blocks     []*Block // none for a declaration
	ptrT       *Type    // as Global's
}

// Param is a function parameter.
type Param struct {
	Name string // "" for a numbered one
	typ  *Type
}

// AddGlobal adds a global variable holding a valueType.
func (m *Module) AddGlobal(name string, valueType *Type) *Global {
	g := &Global{Name: name, ValueType: valueType}
	m.Globals = append(m.Globals, g)
	return g
}

// AddFunc adds a function of type sig, with unnamed parameters.
func (m *Module) AddFunc(name string, sig *Type, linkage Linkage) *Function {
	f := &Function{Name: name, Sig: sig, Linkage: linkage}
	for _, t := range sig.Params() {
		f.Params = append(f.Params, &Param{typ: t})
	}
	m.Funcs = append(m.Funcs, f)
	return f
}

// AddBlock appends a basic block to f.
func (f *Function) AddBlock(name string) *Block {
	b := &Block{Name: name, fn: f}
	f.Blocks = append(f.Blocks, b)
	return b
}

// Type of a global value is ptr (a pointer to its value type for LLVM 14).
func (g *Global) Type() *Type   { return orPtr(g.ptrT) }
func (f *Function) Type() *Type { return orPtr(f.ptrT) }
func (p *Param) Type() *Type    { return p.typ }

func orPtr(t *Type) *Type {
	if t == nil {
		return Ptr
	}
	return t
}

// Value is anything an instruction or constant can use.
type Value interface {
	Type() *Type
}

// ErrInvalid is wrapped by the errors of modules LLVM would not accept.
var ErrInvalid = errors.New("ir: invalid module")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}
