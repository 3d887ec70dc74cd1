package ir

// Block is a basic block; its instructions are appended by the methods
// below, which return the instruction (a Value when it has a result).
type Block struct {
	Name  string
	fn    *Function
	Insts []*Inst
}

// Op is an instruction's opcode.
type Op int

const (
	OpRet Op = iota
	OpBr
	OpCondBr
	OpSwitch
	OpAnd
	OpLShr
	OpTrunc
	OpLoad
	OpStore
	OpGEP
	OpICmp
	OpPhi
	OpCall
	opBitcast // between typed pointers; made only by the lowering for LLVM 14
)

// Pred is an integer comparison predicate.
type Pred int

const (
	EQ Pred = 32 // LLVM's ICMP_EQ
	NE Pred = 33 // LLVM's ICMP_NE
)

// Inst is an instruction.
type Inst struct {
	Op       Op
	Name     string // "" for a numbered (or void) result
	T        *Type  // result type; Void for none
	Operands []Value
	Targets  []*Block // successors; a phi's incoming blocks
	Cases    []*Int   // switch case values, one per Targets[1:]
	Elem     *Type    // the loaded type; a GEP's source element type
	Callee   *Function
	Pred     Pred
	Align    uint64 // load and store alignment in bytes
	Inbounds bool
}

func (i *Inst) Type() *Type { return i.T }

func (b *Block) add(i *Inst) *Inst {
	if i.T == nil {
		i.T = Void
	}
	b.Insts = append(b.Insts, i)
	return i
}

// Ret returns from a void function.
func (b *Block) Ret() { b.add(&Inst{Op: OpRet}) }

// Br branches to dst.
func (b *Block) Br(dst *Block) { b.add(&Inst{Op: OpBr, Targets: []*Block{dst}}) }

// CondBr branches to t if cond is true, else to f.
func (b *Block) CondBr(cond Value, t, f *Block) {
	b.add(&Inst{Op: OpCondBr, Operands: []Value{cond}, Targets: []*Block{t, f}})
}

// Switch branches on v to the block of the matching case, else to def.
// Add cases with (*Inst).Case.
func (b *Block) Switch(v Value, def *Block) *Inst {
	return b.add(&Inst{Op: OpSwitch, Operands: []Value{v}, Targets: []*Block{def}})
}

// Case adds a case to a switch.
func (i *Inst) Case(v *Int, dst *Block) {
	i.Cases = append(i.Cases, v)
	i.Targets = append(i.Targets, dst)
}

// And is the bitwise and of x and y.
func (b *Block) And(name string, x, y Value) *Inst {
	return b.add(&Inst{Op: OpAnd, Name: name, T: x.Type(), Operands: []Value{x, y}})
}

// LShr shifts x right by y bits, filling with zeros.
func (b *Block) LShr(name string, x, y Value) *Inst {
	return b.add(&Inst{Op: OpLShr, Name: name, T: x.Type(), Operands: []Value{x, y}})
}

// Trunc truncates v to the integer type t.
func (b *Block) Trunc(name string, v Value, t *Type) *Inst {
	return b.add(&Inst{Op: OpTrunc, Name: name, T: t, Operands: []Value{v}})
}

// Load loads a t from ptr.
func (b *Block) Load(name string, t *Type, ptr Value, align uint64) *Inst {
	return b.add(&Inst{Op: OpLoad, Name: name, T: t, Elem: t, Operands: []Value{ptr}, Align: align})
}

// Store stores v to ptr.
func (b *Block) Store(v, ptr Value, align uint64) {
	b.add(&Inst{Op: OpStore, Operands: []Value{ptr, v}, Align: align})
}

// GEP is getelementptr [inbounds] src, ptr, indices...
func (b *Block) GEP(name string, inbounds bool, src *Type, ptr Value, indices ...Value) *Inst {
	return b.add(&Inst{Op: OpGEP, Name: name, T: Ptr, Elem: src, Inbounds: inbounds,
		Operands: append([]Value{ptr}, indices...)})
}

// ICmp compares the integers or pointers x and y.
func (b *Block) ICmp(name string, p Pred, x, y Value) *Inst {
	return b.add(&Inst{Op: OpICmp, Name: name, T: I1, Pred: p, Operands: []Value{x, y}})
}

// Phi merges values of type t; add them with (*Inst).Incoming.
func (b *Block) Phi(name string, t *Type) *Inst {
	return b.add(&Inst{Op: OpPhi, Name: name, T: t})
}

// Incoming adds v arriving from the block from to a phi.
func (i *Inst) Incoming(v Value, from *Block) {
	i.Operands = append(i.Operands, v)
	i.Targets = append(i.Targets, from)
}

// Call calls f with args; name is ignored for a void result.
func (b *Block) Call(name string, f *Function, args ...Value) *Inst {
	t := f.Sig.Result()
	if t.IsVoid() {
		name = ""
	}
	return b.add(&Inst{Op: OpCall, Name: name, T: t, Callee: f, Operands: args})
}
