package ir

// LLVM 14 and earlier read only typed pointers: a pointer names its pointee
// (i8*, %struct*, void ()*), and a value must have exactly the pointer type
// of the slot it fills. lowerTyped rewrites a module for them: PtrTo(T)
// becomes T*, a plain Ptr i8*, and where a pointer meets a slot of another
// pointer type it is converted as LLVM 14's builder would: a null is
// retyped, a pointer to an aggregate whose first element is the wanted type
// becomes the inbounds GEP of that element (LLVM 14's constant folder turns
// such a bitcast into it), anything else is bitcast.

// typedPointers reports whether m is written for a reader without opaque
// pointers.
func (m *Module) typedPointers() bool { return m.Reader != 0 && m.Reader <= 14 }

// oldGEP reports whether constant GEPs are written with the records of
// LLVM 18 and earlier (CE_INBOUNDS_GEP, CE_GEP_OLD) instead of LLVM 19's
// CE_GEP, which older readers do not know and read as undef.
func (m *Module) oldGEP() bool { return m.Reader != 0 && m.Reader <= 18 }

// OldestReader is the oldest LLVM whose reader Module.Reader may name.
const OldestReader = 13

// forReader is m as written for its reader: m itself, or its lowering.
func (m *Module) forReader() (*Module, error) {
	if m.Reader != 0 && m.Reader < OldestReader {
		return nil, invalid("LLVM %d is older than the oldest reader written for (LLVM %d)", m.Reader, OldestReader)
	}
	if !m.typedPointers() {
		return m, nil
	}
	return lowerTyped(m)
}

func typedPtr(elem *Type) *Type { return &Type{kind: typedPtrKind, elem: elem} }

type lowering struct {
	types   map[*Type]*Type
	named   map[string]*Type
	pending map[string]bool // named structs whose fields are being lowered
	vals    map[Value]Value // globals, functions, parameters, results and GEPs
	conv    map[conversion]Constant
	err     error
}

type conversion struct {
	v    Constant
	want string
}

func (l *lowering) fail(format string, a ...any) {
	if l.err == nil {
		l.err = invalid(format, a...)
	}
}

func lowerTyped(m *Module) (*Module, error) {
	l := &lowering{types: map[*Type]*Type{}, named: map[string]*Type{}, pending: map[string]bool{}, vals: map[Value]Value{},
		conv: map[conversion]Constant{}}
	out := &Module{SourceFilename: m.SourceFilename, Triple: m.Triple, Reader: m.Reader}
	for _, g := range m.Globals {
		ng := *g
		ng.ValueType, ng.Init = l.typ(g.ValueType), nil
		ng.ptrT = typedPtr(ng.ValueType)
		out.Globals = append(out.Globals, &ng)
		l.vals[g] = &ng
	}
	for _, f := range m.Funcs {
		nf := &Function{Name: f.Name, Sig: l.typ(f.Sig), Linkage: f.Linkage, Visibility: f.Visibility, Section: f.Section}
		nf.ptrT = typedPtr(nf.Sig)
		for _, p := range f.Params {
			np := &Param{Name: p.Name, typ: l.typ(p.typ)}
			nf.Params = append(nf.Params, np)
			l.vals[p] = np
		}
		out.Funcs = append(out.Funcs, nf)
		l.vals[f] = nf
	}
	for i, g := range m.Globals {
		if g.Init != nil {
			out.Globals[i].Init = l.constant(g.Init, out.Globals[i].ValueType)
		}
	}
	for i, f := range m.Funcs {
		l.body(f, out.Funcs[i])
	}
	return out, l.err
}

// typ is t with typed pointers.
func (l *lowering) typ(t *Type) *Type {
	if r, ok := l.types[t]; ok {
		return r
	}
	if t.name != "" {
		if l.pending[t.name] {
			l.fail("struct %s contains a pointer to itself, which is not written for LLVM 14", t.name)
			return t
		}
		if r, ok := l.named[t.name]; ok {
			return r
		}
		l.pending[t.name] = true
		defer delete(l.pending, t.name)
	}
	r := t
	switch t.kind {
	case ptrKind:
		elem := I8
		if t.elem != nil {
			elem = l.typ(t.elem)
		}
		r = typedPtr(elem)
	case arrayKind:
		r = Array(t.n, l.typ(t.elem))
	case structKind:
		r = &Type{kind: structKind, name: t.name, fields: l.typs(t.fields)}
	case funcKind:
		r = Func(l.typ(t.elem), l.typs(t.fields)...)
	}
	l.types[t] = r
	if t.name != "" {
		l.named[t.name] = r
	}
	return r
}

func (l *lowering) typs(ts []*Type) []*Type {
	r := make([]*Type, len(ts))
	for i, t := range ts {
		r[i] = l.typ(t)
	}
	return r
}

// element is the type of element i of the array or struct t.
func (l *lowering) element(t *Type, i int64) *Type {
	switch {
	case t.kind == arrayKind:
		return t.elem
	case t.kind == structKind && i >= 0 && i < int64(len(t.fields)):
		return t.fields[i]
	}
	l.fail("no element %d in %s", i, t)
	return t
}

// indexed is the type a GEP from src with indices points to: the first
// index steps over whole srcs, the others into them.
func (l *lowering) indexed(src *Type, indices []Value) *Type {
	t := src
	for _, v := range indices[min(1, len(indices)):] {
		i := int64(0)
		if c, ok := v.(*Int); ok {
			i = c.V
		} else if t.kind == structKind {
			l.fail("a struct is indexed by a non-constant")
		}
		t = l.element(t, i)
	}
	return t
}

// use is v lowered, with its own type.
func (l *lowering) use(v Value) Value {
	switch c := v.(type) {
	case *Int, *Bytes:
		return c
	case *Null:
		return &Null{T: l.typ(c.T)}
	case *Aggregate:
		return l.constant(c, l.typ(c.T))
	}
	if nv, ok := l.vals[v]; ok {
		return nv
	}
	if c, ok := v.(*GEP); ok {
		src := l.typ(c.Src)
		idx := make([]Value, len(c.Indices))
		for i, x := range c.Indices {
			idx[i] = x
		}
		g := &GEP{Src: src, Base: l.constant(c.Base, typedPtr(src)), Indices: c.Indices, Inbounds: c.Inbounds,
			resT: typedPtr(l.indexed(src, idx))}
		l.vals[c] = g
		return g
	}
	l.fail("a value outside the module is used")
	return v
}

// constant is c lowered to the type want.
func (l *lowering) constant(c Constant, want *Type) Constant {
	switch c := c.(type) {
	case *Int, *Bytes:
		return c
	case *Null:
		return &Null{T: want}
	case *Aggregate:
		elems := make([]Constant, len(c.Elems))
		for i, e := range c.Elems {
			elems[i] = l.constant(e, l.element(want, int64(i)))
		}
		return &Aggregate{T: want, Elems: elems}
	}
	v, _ := l.use(c).(Constant)
	if v == nil {
		return c
	}
	return l.convert(v, want)
}

// convert is the pointer constant v as a want.
func (l *lowering) convert(v Constant, want *Type) Constant {
	have := v.Type()
	if have.String() == want.String() {
		return v
	}
	if have.kind != typedPtrKind || want.kind != typedPtrKind {
		l.fail("a %s where a %s is wanted", have, want)
		return v
	}
	key := conversion{v, want.String()}
	if r, ok := l.conv[key]; ok {
		return r
	}
	var r Constant = &cast{V: v, T: want}
	if idx := firstElement(have.elem, want.elem); idx != nil {
		r = &GEP{Src: have.elem, Base: v, Indices: idx, Inbounds: true, resT: want}
	}
	l.conv[key] = r
	return r
}

// firstElement is the GEP indices from a pointer to from to its first
// element, first element's first element and so on down to a to; nil if
// to is not found so.
func firstElement(from, to *Type) []Constant {
	idx := []Constant{ConstInt(I64, 0)}
	for t := from; ; {
		switch {
		case t.kind == arrayKind:
			idx = append(idx, ConstInt(I64, 0))
			t = t.elem
		case t.kind == structKind && len(t.fields) > 0:
			idx = append(idx, ConstInt(I32, 0))
			t = t.fields[0]
		default:
			return nil
		}
		if t.String() == to.String() {
			return idx
		}
	}
}

// body lowers f's blocks into nf. Phis take their operands last, once
// every result has its type.
func (l *lowering) body(f, nf *Function) {
	blocks := map[*Block]*Block{}
	for _, b := range f.Blocks {
		blocks[b] = nf.AddBlock(b.Name)
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			l.vals[in] = &Inst{Op: in.Op, Name: in.Name, Cases: in.Cases, Pred: in.Pred, Align: in.Align, Inbounds: in.Inbounds}
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			l.inst(in, blocks[b], blocks)
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == OpPhi {
				ni := l.vals[in].(*Inst)
				for k, v := range in.Operands {
					var from *Block
					if k < len(ni.Targets) {
						from = ni.Targets[k]
					}
					ni.Operands = append(ni.Operands, l.phiIn(v, ni.T, from))
				}
			}
		}
	}
}

// phiIn is a phi's incoming v as a want: a pointer of another type is
// bitcast at the end of the block it comes from, before its terminator.
func (l *lowering) phiIn(v Value, want *Type, from *Block) Value {
	if c, ok := v.(Constant); ok {
		return l.constant(c, want)
	}
	nv := l.use(v)
	have := nv.Type()
	switch {
	case have == nil || from == nil:
		l.fail("a phi of %s merges a value from nowhere", want)
	case have.String() == want.String():
	case have.kind == typedPtrKind && want.kind == typedPtrKind:
		bc := &Inst{Op: opBitcast, T: want, Operands: []Value{nv}}
		at := len(from.Insts)
		if at > 0 && from.Insts[at-1].Op <= OpSwitch { // Ret, Br, CondBr, Switch
			at--
		}
		from.Insts = append(from.Insts[:at], append([]*Inst{bc}, from.Insts[at:]...)...)
		return bc
	default:
		l.fail("a phi of %s merges a %s", want, have)
	}
	return nv
}

// arg is v lowered for a slot of type want, through a bitcast placed in nb
// if it is a pointer of another type.
func (l *lowering) arg(nb *Block, v Value, want *Type) Value {
	if c, ok := v.(Constant); ok {
		return l.constant(c, want)
	}
	nv := l.use(v)
	have := nv.Type()
	switch {
	case have == nil:
		l.fail("a value is used before it is defined")
	case have.String() == want.String():
	case have.kind == typedPtrKind && want.kind == typedPtrKind:
		bc := &Inst{Op: opBitcast, T: want, Operands: []Value{nv}}
		nb.Insts = append(nb.Insts, bc)
		return bc
	default:
		l.fail("a %s where a %s is wanted", have, want)
	}
	return nv
}

func (l *lowering) uses(vs []Value) []Value {
	r := make([]Value, len(vs))
	for i, v := range vs {
		r[i] = l.use(v)
	}
	return r
}

// arity lists the operands each opcode needs at least.
var arity = map[Op]int{OpCondBr: 1, OpSwitch: 1, OpAnd: 2, OpLShr: 2, OpTrunc: 1, OpLoad: 1, OpStore: 2, OpGEP: 1, OpICmp: 2}

func (l *lowering) inst(in *Inst, nb *Block, blocks map[*Block]*Block) {
	ni := l.vals[in].(*Inst)
	for _, t := range in.Targets {
		ni.Targets = append(ni.Targets, blocks[t])
	}
	ni.T = l.typ(in.T)
	if in.Elem != nil {
		ni.Elem = l.typ(in.Elem)
	}
	ops := in.Operands
	if len(ops) < arity[in.Op] {
		l.fail("an instruction with %d operands", len(ops))
		return
	}
	switch in.Op {
	case OpLoad:
		ni.Operands = []Value{l.arg(nb, ops[0], typedPtr(ni.T))}
	case OpStore:
		val := l.use(ops[1])
		ni.Operands = []Value{l.arg(nb, ops[0], typedPtr(val.Type())), val}
	case OpGEP:
		ni.Operands = append([]Value{l.arg(nb, ops[0], typedPtr(ni.Elem))}, l.uses(ops[1:])...)
		ni.T = typedPtr(l.indexed(ni.Elem, ops[1:]))
	case OpICmp:
		x := l.use(ops[0])
		ni.Operands = []Value{x, l.arg(nb, ops[1], x.Type())}
	case OpCall:
		callee, _ := l.vals[in.Callee].(*Function)
		if callee == nil || len(ops) != len(callee.Sig.Params()) {
			l.fail("a call to a function outside the module or with the wrong number of arguments")
			return
		}
		ni.Callee = callee
		for k, v := range ops {
			ni.Operands = append(ni.Operands, l.arg(nb, v, callee.Sig.Params()[k]))
		}
	case OpPhi: // operands in body, last
	default:
		ni.Operands = l.uses(ops)
	}
	nb.Insts = append(nb.Insts, ni)
}
