package ir

import "io"

// Constant is a value known at compile time: the constants below, and
// global variables and functions (their addresses).
type Constant interface {
	Value
	isConstant()
}

// Int is an integer constant; V holds the value sign-extended from the
// type's width, as LLVM prints it (i32 -1, not i32 4294967295).
type Int struct {
	T *Type
	V int64
}

// Null is the all-zero value of T: null for ptr, zeroinitializer for an
// aggregate, 0 for an integer.
type Null struct{ T *Type }

// Bytes is a [Size x i8] array read from Data when the module is written.
type Bytes struct {
	Data io.ReaderAt
	Size int64
}

// Aggregate is an array or struct constant.
type Aggregate struct {
	T     *Type
	Elems []Constant
}

// GEP is the constant expression getelementptr [inbounds] (Src, Base,
// Indices...): the address of an element of a global.
type GEP struct {
	Src      *Type
	Base     Constant
	Indices  []Constant
	Inbounds bool
	resT     *Type // the typed pointer it yields, in a module lowered for LLVM 14
}

// cast is the constant expression bitcast (V to T) between typed pointers,
// made only by the lowering for LLVM 14.
type cast struct {
	V Constant
	T *Type
}

func (c *Int) Type() *Type       { return c.T }
func (c *Null) Type() *Type      { return c.T }
func (c *Bytes) Type() *Type     { return Array(uint64(c.Size), I8) }
func (c *Aggregate) Type() *Type { return c.T }
func (c *GEP) Type() *Type       { return orPtr(c.resT) }
func (c *cast) Type() *Type      { return c.T }

func (*Int) isConstant()       {}
func (*Null) isConstant()      {}
func (*Bytes) isConstant()     {}
func (*Aggregate) isConstant() {}
func (*GEP) isConstant()       {}
func (*cast) isConstant()      {}
func (*Global) isConstant()    {}
func (*Function) isConstant()  {}

// ConstInt is the integer v of type t, v sign-extended from t's width.
func ConstInt(t *Type, v int64) *Int {
	if b := t.Bits(); b > 0 && b < 64 {
		v = v << (64 - b) >> (64 - b)
	}
	return &Int{T: t, V: v}
}

// operands are the constants c is built from.
func operands(c Constant) []Constant {
	switch c := c.(type) {
	case *Aggregate:
		return c.Elems
	case *GEP:
		return append([]Constant{c.Base}, c.Indices...)
	case *cast:
		return []Constant{c.V}
	}
	return nil
}
