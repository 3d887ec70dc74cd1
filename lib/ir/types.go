package ir

import (
	"strconv"
	"strings"
)

type typeKind int

const (
	voidKind typeKind = iota
	intKind
	ptrKind
	arrayKind
	structKind
	funcKind
	typedPtrKind // a pointer of LLVM <= 14, which names its pointee
)

// Type is an LLVM type: void, an integer, the opaque pointer of address
// space 0, an array, a struct (literal or named) or a function type. Types
// are compared by their text form; named structs by name.
type Type struct {
	kind   typeKind
	bits   int     // integer width
	n      uint64  // array length
	elem   *Type   // array element, function result
	fields []*Type // struct fields, function parameters
	name   string  // named struct
}

// The types the wrapper modules use.
var (
	Void = &Type{kind: voidKind}
	Ptr  = &Type{kind: ptrKind}
	I1   = &Type{kind: intKind, bits: 1}
	I8   = &Type{kind: intKind, bits: 8}
	I16  = &Type{kind: intKind, bits: 16}
	I32  = &Type{kind: intKind, bits: 32}
	I64  = &Type{kind: intKind, bits: 64}
)

// Array is [n x elem].
func Array(n uint64, elem *Type) *Type { return &Type{kind: arrayKind, n: n, elem: elem} }

// Struct is the literal struct { fields }.
func Struct(fields ...*Type) *Type { return &Type{kind: structKind, fields: fields} }

// NamedStruct is the identified struct %name = type { fields }.
func NamedStruct(name string, fields ...*Type) *Type {
	return &Type{kind: structKind, fields: fields, name: name}
}

// PtrTo is ptr, noting that it points to elem. Written for LLVM 15 or
// later it is ptr; for LLVM 14 (Module.Reader) it becomes the typed
// pointer elem*. A plain Ptr becomes i8* there.
func PtrTo(elem *Type) *Type { return &Type{kind: ptrKind, elem: elem} }

// Func is the function type ret (params).
func Func(ret *Type, params ...*Type) *Type { return &Type{kind: funcKind, elem: ret, fields: params} }

// String is the type as LLVM's assembly writes it.
func (t *Type) String() string {
	switch t.kind {
	case voidKind:
		return "void"
	case intKind:
		return "i" + strconv.Itoa(t.bits)
	case ptrKind:
		return "ptr"
	case typedPtrKind:
		return t.elem.String() + "*"
	case arrayKind:
		return "[" + strconv.FormatUint(t.n, 10) + " x " + t.elem.String() + "]"
	case structKind:
		if t.name != "" {
			return "%" + quoteName(t.name)
		}
		return t.body()
	default:
		return t.elem.String() + " (" + typeList(t.fields) + ")"
	}
}

// body is a struct's field list, "{ i32, ptr }".
func (t *Type) body() string {
	if len(t.fields) == 0 {
		return "{}"
	}
	return "{ " + typeList(t.fields) + " }"
}

func typeList(ts []*Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// isPtr reports whether t is a pointer, opaque or typed.
func (t *Type) isPtr() bool { return t.kind == ptrKind || t.kind == typedPtrKind }

// IsVoid reports whether t is void.
func (t *Type) IsVoid() bool { return t.kind == voidKind }

// Bits is an integer type's width, 0 for other types.
func (t *Type) Bits() int {
	if t.kind != intKind {
		return 0
	}
	return t.bits
}

// Result is a function type's result type.
func (t *Type) Result() *Type { return t.elem }

// Params are a function type's parameter types.
func (t *Type) Params() []*Type { return t.fields }

// deps are the types t is made of.
func (t *Type) deps() []*Type {
	switch t.kind {
	case arrayKind, typedPtrKind:
		return []*Type{t.elem}
	case structKind:
		return t.fields
	case funcKind:
		return append([]*Type{t.elem}, t.fields...)
	}
	return nil
}
