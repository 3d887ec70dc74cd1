package ir

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText writes m as LLVM assembly, which llvm-as and clang -x ir read.
// Images stream from their readers (each is read twice: once to see
// whether it is all zeros, which LLVM writes as zeroinitializer).
// For LLVM 14 (m.Reader) it is written with typed pointers.
func (m *Module) WriteText(w io.Writer) error {
	m, err := m.forReader()
	if err != nil {
		return err
	}
	n, err := number(m)
	if err != nil {
		return err
	}
	t := &textWriter{w: bufio.NewWriterSize(w, 64<<10), n: n}
	t.module(m)
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

type textWriter struct {
	w     *bufio.Writer
	n     *numbering
	local map[Value]string // the current function's values: "%name" or "%N"
	err   error
}

func (t *textWriter) print(s ...string) {
	for _, x := range s {
		if t.err == nil {
			_, t.err = t.w.WriteString(x)
		}
	}
}

func (t *textWriter) module(m *Module) {
	t.print("; ModuleID = '", m.SourceFilename, "'\n")
	if m.SourceFilename != "" {
		t.print("source_filename = \"", escape(m.SourceFilename), "\"\n")
	}
	if m.Triple != "" {
		t.print("target triple = \"", escape(m.Triple), "\"\n")
	}
	t.print("\n")
	named := false
	for _, ty := range t.n.types {
		if ty.kind == structKind && ty.name != "" {
			t.print(ty.String(), " = type ", ty.body(), "\n")
			named = true
		}
	}
	if named {
		t.print("\n")
	}
	for _, g := range m.Globals {
		t.global(g)
	}
	for _, f := range m.Funcs {
		t.print("\n")
		t.function(f)
	}
}

func linkageText(l Linkage, declaration bool) string {
	switch l {
	case Internal:
		return "internal "
	case Appending:
		return "appending "
	case ExternWeak:
		return "extern_weak "
	case Weak:
		return "weak "
	case WeakODR:
		return "weak_odr "
	}
	if declaration {
		return "external "
	}
	return ""
}

func (t *textWriter) global(g *Global) {
	t.print("@", quoteName(g.Name), " = ", linkageText(g.Linkage, g.Init == nil))
	if g.Visibility == Hidden {
		t.print("hidden ")
	}
	if g.UnnamedAddr {
		t.print("unnamed_addr ")
	}
	if g.Constant {
		t.print("constant ")
	} else {
		t.print("global ")
	}
	t.print(g.ValueType.String())
	if g.Init != nil {
		t.print(" ")
		t.constant(g.Init)
	}
	if g.Section != "" {
		t.print(", section \"", escape(g.Section), "\"")
	}
	if g.Align != 0 {
		t.print(", align ", strconv.FormatUint(g.Align, 10))
	}
	t.print("\n")
}

// constant writes c without its type.
func (t *textWriter) constant(c Constant) {
	switch c := c.(type) {
	case *Global:
		t.print("@", quoteName(c.Name))
	case *Function:
		t.print("@", quoteName(c.Name))
	case *Int:
		if c.T.Bits() == 1 {
			t.print(strconv.FormatBool(c.V != 0))
		} else {
			t.print(strconv.FormatInt(c.V, 10))
		}
	case *Null:
		switch c.T.kind {
		case ptrKind, typedPtrKind:
			t.print("null")
		case intKind:
			t.print("0")
		default:
			t.print("zeroinitializer")
		}
	case *Bytes:
		t.bytes(c)
	case *Aggregate:
		open, close := "{ ", " }"
		if c.T.kind == arrayKind {
			open, close = "[", "]"
		}
		t.print(open)
		for i, e := range c.Elems {
			if i > 0 {
				t.print(", ")
			}
			t.typed(e)
		}
		t.print(close)
	case *GEP:
		t.print("getelementptr ")
		if c.Inbounds {
			t.print("inbounds ")
		}
		t.print("(", c.Src.String())
		for _, op := range operands(c) {
			t.print(", ")
			t.typed(op)
		}
		t.print(")")
	case *cast:
		t.print("bitcast (")
		t.typed(c.V)
		t.print(" to ", c.T.String(), ")")
	}
}

// typed writes a constant with its type, "i32 7".
func (t *textWriter) typed(c Constant) {
	t.print(c.Type().String(), " ")
	t.constant(c)
}

// bytes writes an image as a string constant, streaming it.
func (t *textWriter) bytes(c *Bytes) {
	zero, err := allZero(c)
	if err != nil && t.err == nil {
		t.err = err
	}
	if zero {
		t.print("zeroinitializer")
		return
	}
	t.print(`c"`)
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(c.Data, 0, c.Size)
	for t.err == nil {
		k, err := r.Read(buf)
		t.print(escape(string(buf[:k])))
		if err == io.EOF {
			break
		}
		if err != nil {
			t.err = err
		}
	}
	t.print(`"`)
}

// allZero reports whether every byte of c is zero (an empty array is).
func allZero(c *Bytes) (bool, error) {
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(c.Data, 0, c.Size)
	var seen int64
	for {
		k, err := r.Read(buf)
		seen += int64(k)
		for _, b := range buf[:k] {
			if b != 0 {
				return false, nil
			}
		}
		if err == io.EOF {
			if seen != c.Size {
				return false, fmt.Errorf("ir: an image of %d bytes ended after %d", c.Size, seen)
			}
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

func (t *textWriter) function(f *Function) {
	decl := len(f.Blocks) == 0
	if decl {
		t.print("declare ", linkageText(f.Linkage, false))
	} else {
		t.print("define ", linkageText(f.Linkage, false))
	}
	if f.Visibility == Hidden {
		t.print("hidden ")
	}
	t.print(f.Sig.Result().String(), " @", quoteName(f.Name), "(")
	t.names(f)
	for i, p := range f.Params {
		if i > 0 {
			t.print(", ")
		}
		t.print(p.typ.String())
		if !decl {
			t.print(" ", t.local[p])
		}
	}
	t.print(")")
	if f.Section != "" {
		t.print(" section \"", escape(f.Section), "\"")
	}
	if decl {
		t.print("\n")
		return
	}
	t.print(" {\n")
	for i, b := range f.Blocks {
		if i > 0 {
			t.print("\n")
		}
		t.print(strings.TrimPrefix(t.local[b], "%"), ":\n")
		for _, in := range b.Insts {
			t.print("  ")
			t.inst(in)
			t.print("\n")
		}
	}
	t.print("}\n")
}

// names numbers f's unnamed parameters, blocks and results as LLVM does.
func (t *textWriter) names(f *Function) {
	t.local = map[Value]string{}
	next := 0
	name := func(v Value, s string) {
		if s != "" {
			t.local[v] = "%" + quoteName(s)
		} else {
			t.local[v] = "%" + strconv.Itoa(next)
			next++
		}
	}
	for _, p := range f.Params {
		name(p, p.Name)
	}
	for _, b := range f.Blocks {
		name(b, b.Name)
		for _, in := range b.Insts {
			if !in.T.IsVoid() {
				name(in, in.Name)
			}
		}
	}
}

// Type makes a block a Value, so that it is named with the others; it
// is the label type, which this package does not model.
func (b *Block) Type() *Type { return Void }

// operand writes v without its type.
func (t *textWriter) operand(v Value) {
	if s, ok := t.local[v]; ok {
		t.print(s)
		return
	}
	if c, ok := v.(Constant); ok {
		t.constant(c)
		return
	}
	if t.err == nil {
		t.err = invalid("an operand is neither a constant nor a value of this function")
	}
}

func (t *textWriter) typedOperand(v Value) {
	t.print(v.Type().String(), " ")
	t.operand(v)
}

func (t *textWriter) label(b *Block) {
	t.print("label ")
	t.operand(b)
}

func (t *textWriter) inst(i *Inst) {
	if !i.T.IsVoid() {
		t.print(t.local[i], " = ")
	}
	ops := i.Operands
	switch i.Op {
	case OpRet:
		t.print("ret void")
	case OpBr:
		t.print("br ")
		t.label(i.Targets[0])
	case OpCondBr:
		t.print("br ")
		t.typedOperand(ops[0])
		t.print(", ")
		t.label(i.Targets[0])
		t.print(", ")
		t.label(i.Targets[1])
	case OpSwitch:
		t.print("switch ")
		t.typedOperand(ops[0])
		t.print(", ")
		t.label(i.Targets[0])
		t.print(" [\n")
		for k, c := range i.Cases {
			t.print("    ")
			t.typed(c)
			t.print(", ")
			t.label(i.Targets[k+1])
			t.print("\n")
		}
		t.print("  ]")
	case OpAnd, OpLShr:
		t.print(map[Op]string{OpAnd: "and ", OpLShr: "lshr "}[i.Op])
		t.typedOperand(ops[0])
		t.print(", ")
		t.operand(ops[1])
	case OpTrunc, opBitcast:
		t.print(map[Op]string{OpTrunc: "trunc ", opBitcast: "bitcast "}[i.Op])
		t.typedOperand(ops[0])
		t.print(" to ", i.T.String())
	case OpLoad:
		t.print("load ", i.T.String(), ", ")
		t.typedOperand(ops[0])
		t.print(", align ", strconv.FormatUint(i.Align, 10))
	case OpStore:
		t.print("store ")
		t.typedOperand(ops[1])
		t.print(", ")
		t.typedOperand(ops[0])
		t.print(", align ", strconv.FormatUint(i.Align, 10))
	case OpGEP:
		t.print("getelementptr ")
		if i.Inbounds {
			t.print("inbounds ")
		}
		t.print(i.Elem.String())
		for _, v := range ops {
			t.print(", ")
			t.typedOperand(v)
		}
	case OpICmp:
		t.print(map[Pred]string{EQ: "icmp eq ", NE: "icmp ne "}[i.Pred])
		t.typedOperand(ops[0])
		t.print(", ")
		t.operand(ops[1])
	case OpPhi:
		t.print("phi ", i.T.String(), " ")
		for k, v := range ops {
			if k > 0 {
				t.print(", ")
			}
			t.print("[ ")
			t.operand(v)
			t.print(", ")
			t.operand(i.Targets[k])
			t.print(" ]")
		}
	case OpCall:
		t.print("call ", i.T.String(), " @", quoteName(i.Callee.Name), "(")
		for k, v := range ops {
			if k > 0 {
				t.print(", ")
			}
			t.typedOperand(v)
		}
		t.print(")")
	}
}
