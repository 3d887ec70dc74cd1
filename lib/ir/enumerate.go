package ir

import "strconv"

// numbering assigns the IDs bitcode refers to: types in one table, and
// values in one sequence (global variables, functions, then every constant;
// a function's parameters and results continue after them).
type numbering struct {
	types    []*Type
	typeID   map[string]int
	named    map[string]string // named struct -> its body, to catch clashes
	values   map[Value]int
	scalar   map[string]int // integer and null constants, by text
	consts   []Constant
	sections []string
	section  map[string]int
	err      error
}

func number(m *Module) (*numbering, error) {
	n := &numbering{typeID: map[string]int{}, named: map[string]string{}, values: map[Value]int{},
		scalar: map[string]int{}, section: map[string]int{}}
	for _, g := range m.Globals {
		n.value(g)
		n.typ(g.ValueType)
		n.addSection(g.Section)
	}
	for _, f := range m.Funcs {
		n.value(f)
		n.typ(f.Sig)
		n.addSection(f.Section)
	}
	if !m.typedPointers() {
		n.typ(Ptr) // the type of every global value
	}
	for _, g := range m.Globals {
		n.typ(g.Type())
	}
	for _, f := range m.Funcs {
		n.typ(f.Type())
	}
	for _, g := range m.Globals {
		if g.Init != nil {
			n.constant(g.Init)
		}
	}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, i := range b.Insts {
				n.inst(i)
			}
		}
	}
	return n, n.err
}

func (n *numbering) fail(format string, a ...any) {
	if n.err == nil {
		n.err = invalid(format, a...)
	}
}

func (n *numbering) value(v Value) {
	if _, dup := n.values[v]; dup {
		n.fail("a global value is added twice")
	}
	n.values[v] = len(n.values)
}

func (n *numbering) addSection(s string) {
	if _, ok := n.section[s]; s != "" && !ok {
		n.section[s] = len(n.sections)
		n.sections = append(n.sections, s)
	}
}

// typ numbers t after the types it is made of.
func (n *numbering) typ(t *Type) {
	key := t.String()
	if _, ok := n.typeID[key]; ok {
		if t.name != "" && n.named[t.name] != t.body() {
			n.fail("two struct types are named %s", t.name)
		}
		return
	}
	if t.kind == funcKind && t.elem.kind == funcKind {
		n.fail("a function returns a function type")
	}
	for _, d := range t.deps() {
		n.typ(d)
	}
	if t.name != "" {
		n.named[t.name] = t.body()
	}
	n.typeID[key] = len(n.types)
	n.types = append(n.types, t)
}

func (n *numbering) typeOf(t *Type) uint64 { return uint64(n.typeID[t.String()]) }

// scalarKey is the text of the constants numbered once however often used.
func scalarKey(c Constant) string {
	switch c := c.(type) {
	case *Int:
		return c.T.String() + " " + strconv.FormatInt(c.V, 10)
	case *Null:
		return c.T.String() + " zero"
	}
	return ""
}

// constant numbers c after its operands.
func (n *numbering) constant(c Constant) {
	switch c.(type) {
	case *Global, *Function:
		if _, ok := n.values[c]; !ok {
			n.fail("a constant refers to a global value outside the module")
		}
		return
	}
	if _, ok := n.lookup(c); ok {
		return
	}
	for _, op := range operands(c) {
		n.constant(op)
	}
	if g, ok := c.(*GEP); ok {
		n.typ(g.Src)
	}
	if i, ok := c.(*Int); ok && (i.T.Bits() == 0 || i.T.Bits() > 64) {
		n.fail("integer constant of type %s", i.T)
	}
	n.typ(c.Type())
	id := len(n.values)
	if k := scalarKey(c); k != "" {
		n.scalar[k] = id
	}
	n.values[c] = id
	n.consts = append(n.consts, c)
}

// lookup is the ID of a global value or module constant.
func (n *numbering) lookup(v Value) (int, bool) {
	if c, ok := v.(Constant); ok {
		if k := scalarKey(c); k != "" {
			id, ok := n.scalar[k]
			return id, ok
		}
	}
	id, ok := n.values[v]
	return id, ok
}

// inst numbers the types and constants an instruction uses.
func (n *numbering) inst(i *Inst) {
	n.typ(i.T)
	if i.Elem != nil {
		n.typ(i.Elem)
	}
	if i.Callee != nil {
		n.typ(i.Callee.Sig)
		if _, ok := n.values[i.Callee]; !ok {
			n.fail("a call to %s, which is not in the module", i.Callee.Name)
		}
		if len(i.Operands) != len(i.Callee.Sig.Params()) {
			n.fail("a call to %s with %d arguments", i.Callee.Name, len(i.Operands))
		}
	}
	for _, v := range i.Operands {
		n.typ(v.Type())
		if c, ok := v.(Constant); ok {
			n.constant(c)
		}
	}
	for _, c := range i.Cases {
		n.constant(c)
	}
}
