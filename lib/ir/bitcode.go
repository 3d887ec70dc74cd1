package ir

import (
	"io"
	"math/bits"
	"strings"
)

// Block IDs and record codes of LLVM's bitcode (llvm/Bitcode/LLVMBitCodes.h).
const (
	blockModule         = 8
	blockConstants      = 11
	blockFunction       = 12
	blockIdentification = 13
	blockValueSymtab    = 14
	blockType           = 17 // TYPE_BLOCK_ID_NEW
	blockStrtab         = 23

	identString = 1
	identEpoch  = 2

	moduleVersion        = 1
	moduleTriple         = 2
	moduleSectionName    = 5
	moduleGlobalVar      = 7
	moduleFunction       = 8
	moduleSourceFilename = 16

	typeNumEntry    = 1
	typeVoid        = 2
	typeInteger     = 7
	typeArray       = 11
	typeStructAnon  = 18
	typeStructName  = 19
	typeStructNamed = 20
	typePointer     = 8 // [pointee, address space]: LLVM <= 14's typed pointer
	typeFunction    = 21
	typeOpaquePtr   = 25

	cstSetType   = 1
	cstNull      = 2
	cstInteger   = 4
	cstAggregate = 7
	cstString    = 8
	cstCast      = 11 // CST_CODE_CE_CAST: [opcode, opty, opval]
	cstGEPOld    = 12 // CST_CODE_CE_GEP_OLD: [srcty, (ty, val)...], every LLVM
	cstGEPIn     = 20 // CST_CODE_CE_INBOUNDS_GEP: the same, inbounds
	cstGEP       = 32 // CST_CODE_CE_GEP: [srcty, flags, (ty, val)...], LLVM >= 19

	funcDeclareBlocks = 1
	instBinop         = 2
	instCast          = 3
	instRet           = 10
	instBr            = 11
	instSwitch        = 12
	instPhi           = 16
	instLoad          = 20
	instCmp2          = 28
	instCall          = 34
	instGEP           = 43
	instStore         = 44

	vstEntry   = 1
	vstBBEntry = 2

	strtabBlob = 1

	binopLShr        = 8
	binopAnd         = 10
	castTrunc        = 0
	castBitcast      = 11
	gepInbounds      = 3       // inbounds, which implies nusw
	callExplicitType = 1 << 15 // the call record names the function type
)

// Producer is the identification block's producer string.
const Producer = "rules_offload"

// WriteBitcode writes m as a bitcode file (module format version 2: names
// in a string table).
// LLVM before 19 (m.Reader) gets the constant GEP records it knows, and
// LLVM 14 typed pointers.
func (m *Module) WriteBitcode(w io.Writer) error {
	m, err := m.forReader()
	if err != nil {
		return err
	}
	n, err := number(m)
	if err != nil {
		return err
	}
	bw := &bcWriter{m: m, n: n, s: newBitstream([]byte("BC\xC0\xDE"))}
	if err := bw.write(); err != nil {
		return err
	}
	_, err = bw.s.WriteTo(w)
	return err
}

type bcWriter struct {
	m      *Module
	n      *numbering
	s      *bitstream
	strtab strings.Builder
}

func (w *bcWriter) write() error {
	s := w.s
	s.enterBlock(blockIdentification, 5)
	s.stringRecord(identString, nil, Producer)
	s.record(identEpoch, 0)
	if err := s.endBlock(); err != nil {
		return err
	}
	s.enterBlock(blockModule, 3)
	s.record(moduleVersion, 2)
	if err := w.types(); err != nil {
		return err
	}
	if w.m.Triple != "" {
		s.stringRecord(moduleTriple, nil, w.m.Triple)
	}
	for _, sec := range w.n.sections {
		s.stringRecord(moduleSectionName, nil, sec)
	}
	if w.m.SourceFilename != "" {
		s.stringRecord(moduleSourceFilename, nil, w.m.SourceFilename)
	}
	for _, g := range w.m.Globals {
		if err := w.global(g); err != nil {
			return err
		}
	}
	for _, f := range w.m.Funcs {
		w.function(f)
	}
	if err := w.constants(); err != nil {
		return err
	}
	for _, f := range w.m.Funcs {
		if len(f.Blocks) > 0 {
			if err := w.body(f); err != nil {
				return err
			}
		}
	}
	if err := s.endBlock(); err != nil {
		return err
	}
	s.enterBlock(blockStrtab, 3)
	s.defineBlobAbbrev(strtabBlob)
	if err := s.blob(strings.NewReader(w.strtab.String()), int64(w.strtab.Len())); err != nil {
		return err
	}
	return s.endBlock()
}

func (w *bcWriter) types() error {
	s := w.s
	s.enterBlock(blockType, 4)
	s.record(typeNumEntry, uint64(len(w.n.types)))
	for _, t := range w.n.types {
		ids := make([]uint64, 0, len(t.deps()))
		for _, d := range t.deps() {
			ids = append(ids, w.n.typeOf(d))
		}
		switch t.kind {
		case voidKind:
			s.record(typeVoid)
		case intKind:
			s.record(typeInteger, uint64(t.bits))
		case ptrKind:
			s.record(typeOpaquePtr, 0)
		case typedPtrKind:
			s.record(typePointer, ids[0], 0)
		case arrayKind:
			s.record(typeArray, t.n, ids[0])
		case structKind:
			code := uint64(typeStructAnon)
			if t.name != "" {
				s.stringRecord(typeStructName, nil, t.name)
				code = typeStructNamed
			}
			s.record(code, append([]uint64{0}, ids...)...) // not packed
		case funcKind:
			s.record(typeFunction, append([]uint64{0}, ids...)...) // not vararg
		}
	}
	return s.endBlock()
}

// name adds a global value's name to the string table: [offset, size].
func (w *bcWriter) name(s string) []uint64 {
	off := w.strtab.Len()
	w.strtab.WriteString(s)
	return []uint64{uint64(off), uint64(len(s))}
}

func linkageCode(l Linkage) uint64 {
	return map[Linkage]uint64{External: 0, Appending: 2, Internal: 3, ExternWeak: 7, Weak: 16, WeakODR: 17}[l]
}

// dsoLocal is LLVM's implied dso_local: local linkage, or a visibility
// other than default on anything but an extern_weak declaration.
func dsoLocal(l Linkage, v Visibility) uint64 {
	if l == Internal || (v != Default && l != ExternWeak) {
		return 1
	}
	return 0
}

// alignCode is log2(align)+1, 0 for none.
func alignCode(align uint64) (uint64, error) {
	if align == 0 {
		return 0, nil
	}
	if align&(align-1) != 0 || align > 1<<32 {
		return 0, invalid("alignment %d is not a power of two up to 2^32", align)
	}
	return uint64(bits.TrailingZeros64(align)) + 1, nil
}

func (w *bcWriter) sectionCode(sec string) uint64 {
	if sec == "" {
		return 0
	}
	return uint64(w.n.section[sec]) + 1
}

func (w *bcWriter) global(g *Global) error {
	flags := uint64(2) // the type field is the value type
	if g.Constant {
		flags |= 1
	}
	var init uint64
	if g.Init != nil {
		id, _ := w.n.lookup(g.Init)
		init = uint64(id) + 1
	}
	align, err := alignCode(g.Align)
	if err != nil {
		return err
	}
	var unnamed uint64
	if g.UnnamedAddr {
		unnamed = 1
	}
	ops := append(w.name(g.Name), w.n.typeOf(g.ValueType), flags, init, linkageCode(g.Linkage), align,
		w.sectionCode(g.Section), uint64(g.Visibility), 0, unnamed, 0, 0, 0, 0, dsoLocal(g.Linkage, g.Visibility))
	w.s.record(moduleGlobalVar, ops...)
	return nil
}

func (w *bcWriter) function(f *Function) {
	var proto uint64
	if len(f.Blocks) == 0 {
		proto = 1
	}
	ops := append(w.name(f.Name), w.n.typeOf(f.Sig), 0, proto, linkageCode(f.Linkage), 0, 0,
		w.sectionCode(f.Section), uint64(f.Visibility), 0, 0, 0, 0, 0, 0, 0, dsoLocal(f.Linkage, f.Visibility))
	w.s.record(moduleFunction, ops...)
}

// signed is LLVM's encoding of a signed operand: the magnitude shifted
// left, the sign in bit 0.
func signed(v int64) uint64 {
	if v >= 0 {
		return uint64(v) << 1
	}
	return uint64(-v)<<1 | 1
}

func (w *bcWriter) constants() error {
	if len(w.n.consts) == 0 {
		return nil
	}
	s := w.s
	s.enterBlock(blockConstants, 4)
	s.defineBlobAbbrev(cstString)
	cur := -1
	for _, c := range w.n.consts {
		if t := int(w.n.typeOf(c.Type())); t != cur {
			s.record(cstSetType, uint64(t))
			cur = t
		}
		if err := w.constant(c); err != nil {
			return err
		}
	}
	return s.endBlock()
}

func (w *bcWriter) constant(c Constant) error {
	s := w.s
	id := func(v Constant) uint64 { i, _ := w.n.lookup(v); return uint64(i) }
	switch c := c.(type) {
	case *Int:
		s.record(cstInteger, signed(c.V))
	case *Null:
		s.record(cstNull)
	case *Bytes:
		if c.Size == 0 {
			s.record(cstNull) // LLVM reads an empty STRING as an error
			return nil
		}
		return s.blob(c.Data, c.Size)
	case *Aggregate:
		ops := make([]uint64, len(c.Elems))
		for i, e := range c.Elems {
			ops[i] = id(e)
		}
		s.record(cstAggregate, ops...)
	case *GEP:
		code, ops := uint64(cstGEP), []uint64{w.n.typeOf(c.Src)}
		switch {
		case w.m.oldGEP() && c.Inbounds:
			code = cstGEPIn
		case w.m.oldGEP():
			code = cstGEPOld
		case c.Inbounds:
			ops = append(ops, gepInbounds)
		default:
			ops = append(ops, 0)
		}
		for _, op := range operands(c) {
			ops = append(ops, w.n.typeOf(op.Type()), id(op))
		}
		s.record(code, ops...)
	case *cast:
		s.record(cstCast, castBitcast, w.n.typeOf(c.V.Type()), id(c.V))
	}
	return nil
}
