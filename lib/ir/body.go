package ir

import "fmt"

// fnWriter writes one function body. Instruction operands are relative:
// the ID the instruction would get minus the operand's ID.
type fnWriter struct {
	w      *bcWriter
	f      *Function
	local  map[Value]int // parameters and results
	blocks map[*Block]int
	next   uint64 // the ID of the instruction being written
	err    error
}

func (w *bcWriter) body(f *Function) error {
	fw := &fnWriter{w: w, f: f, local: map[Value]int{}, blocks: map[*Block]int{}}
	id := len(w.n.values)
	for _, p := range f.Params {
		fw.local[p] = id
		id++
	}
	for i, b := range f.Blocks {
		fw.blocks[b] = i
		for _, in := range b.Insts {
			if !in.T.IsVoid() {
				fw.local[in] = id
				id++
			}
		}
	}
	s := w.s
	s.enterBlock(blockFunction, 4)
	s.record(funcDeclareBlocks, uint64(len(f.Blocks)))
	fw.next = uint64(len(w.n.values) + len(f.Params))
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			fw.inst(in)
			if !in.T.IsVoid() {
				fw.next++
			}
		}
	}
	if fw.err != nil {
		return fw.err
	}
	fw.symtab()
	if fw.err != nil {
		return fw.err
	}
	return s.endBlock()
}

func (fw *fnWriter) fail(format string, a ...any) {
	if fw.err == nil {
		fw.err = invalid("function %s: %s", fw.f.Name, fmt.Sprintf(format, a...))
	}
}

// id is the absolute ID of v.
func (fw *fnWriter) id(v Value) uint64 {
	if id, ok := fw.local[v]; ok {
		return uint64(id)
	}
	if id, ok := fw.w.n.lookup(v); ok {
		return uint64(id)
	}
	fw.fail("an operand is neither a global value, a constant nor a value of this function")
	return 0
}

// rel is an operand relative to the current instruction; a forward
// reference wraps around in 32 bits, as LLVM writes it.
func (fw *fnWriter) rel(v Value) uint64 { return uint64(uint32(fw.next - fw.id(v))) }

// relType is rel followed by v's type when v is a forward reference.
func (fw *fnWriter) relType(v Value) []uint64 {
	if fw.id(v) >= fw.next {
		return []uint64{fw.rel(v), fw.w.n.typeOf(v.Type())}
	}
	return []uint64{fw.rel(v)}
}

func (fw *fnWriter) block(b *Block) uint64 {
	i, ok := fw.blocks[b]
	if !ok {
		fw.fail("a branch to a block of another function")
	}
	return uint64(i)
}

func (fw *fnWriter) align(a uint64) uint64 {
	c, err := alignCode(a)
	if err != nil && fw.err == nil {
		fw.err = err
	}
	return c
}

func (fw *fnWriter) inst(i *Inst) {
	s, n := fw.w.s, fw.w.n
	ops := i.Operands
	switch i.Op {
	case OpRet:
		s.record(instRet)
	case OpBr:
		s.record(instBr, fw.block(i.Targets[0]))
	case OpCondBr:
		s.record(instBr, fw.block(i.Targets[0]), fw.block(i.Targets[1]), fw.rel(ops[0]))
	case OpSwitch:
		rec := []uint64{n.typeOf(ops[0].Type()), fw.rel(ops[0]), fw.block(i.Targets[0])}
		for k, c := range i.Cases {
			rec = append(rec, fw.id(c), fw.block(i.Targets[k+1]))
		}
		s.record(instSwitch, rec...)
	case OpAnd, OpLShr:
		code := map[Op]uint64{OpAnd: binopAnd, OpLShr: binopLShr}[i.Op]
		s.record(instBinop, append(fw.relType(ops[0]), fw.rel(ops[1]), code)...)
	case OpTrunc:
		s.record(instCast, append(fw.relType(ops[0]), n.typeOf(i.T), castTrunc)...)
	case opBitcast:
		s.record(instCast, append(fw.relType(ops[0]), n.typeOf(i.T), castBitcast)...)
	case OpLoad:
		s.record(instLoad, append(fw.relType(ops[0]), n.typeOf(i.T), fw.align(i.Align), 0)...)
	case OpStore:
		rec := append(fw.relType(ops[0]), fw.relType(ops[1])...)
		s.record(instStore, append(rec, fw.align(i.Align), 0)...)
	case OpGEP:
		var flags uint64
		if i.Inbounds {
			flags = gepInbounds
		}
		rec := []uint64{flags, n.typeOf(i.Elem)}
		for _, v := range ops {
			rec = append(rec, fw.relType(v)...)
		}
		s.record(instGEP, rec...)
	case OpICmp:
		s.record(instCmp2, append(fw.relType(ops[0]), fw.rel(ops[1]), uint64(i.Pred))...)
	case OpPhi:
		rec := []uint64{n.typeOf(i.T)}
		for k, v := range ops {
			rec = append(rec, signed(int64(fw.next)-int64(fw.id(v))), fw.block(i.Targets[k]))
		}
		s.record(instPhi, rec...)
	case OpCall:
		rec := append([]uint64{0, callExplicitType, n.typeOf(i.Callee.Sig)}, fw.relType(i.Callee)...)
		for _, v := range ops {
			rec = append(rec, fw.rel(v))
		}
		s.record(instCall, rec...)
	default:
		fw.fail("unknown opcode %d", i.Op)
	}
}

// symtab writes the names of parameters, results and blocks.
func (fw *fnWriter) symtab() {
	s := fw.w.s
	entered := false
	enter := func() {
		if !entered {
			s.enterBlock(blockValueSymtab, 4)
			entered = true
		}
	}
	for _, p := range fw.f.Params {
		if p.Name != "" {
			enter()
			s.stringRecord(vstEntry, []uint64{uint64(fw.local[p])}, p.Name)
		}
	}
	for bi, b := range fw.f.Blocks {
		if b.Name != "" {
			enter()
			s.stringRecord(vstBBEntry, []uint64{uint64(bi)}, b.Name)
		}
		for _, in := range b.Insts {
			if in.Name != "" && !in.T.IsVoid() {
				enter()
				s.stringRecord(vstEntry, []uint64{uint64(fw.local[in])}, in.Name)
			}
		}
	}
	if entered && fw.err == nil {
		fw.err = s.endBlock()
	}
}
