package wrapper

import (
	"encoding/binary"
	"fmt"
)

// The registration functions are generated once per architecture as a list
// of instructions that carry both their assembly text and their encoding.
// EmitAsm prints the text and EmitObj writes the bytes, so the two forms
// agree; the tests check the bytes against what GNU as and clang assemble
// from the text.

// insn is one instruction, or a label when label is set and text is empty.
type insn struct {
	label string // defines a label (a function symbol or a .L label) here
	text  string
	enc   []byte
	fix   *fixup  // a symbol reference in enc
	br    *branch // a branch to a label of the same section
}

// localFix says how a reference to a symbol of the same section is resolved
// without a relocation, as assemblers do for local symbols.
type localFix int

const (
	keepReloc localFix = iota // always a relocation (AArch64 page addressing)
	disp32                    // x86-64 PC-relative 32-bit field: S + A - P
	imm26                     // AArch64 b/bl: (S - P) / 4 in bits 0-25
)

// fixup is a symbol reference at byte off of an instruction.
type fixup struct {
	off   int
	sym   string
	add   int64
	rtype uint32 // relocation type when it stays a relocation
	local localFix
}

// branch is a branch to a label. On x86-64 it is relaxed: short (rel8)
// unless the target is out of reach, then long (rel32).
type branch struct {
	target string
	x86op  byte // 0xeb jmp, 0x7X jcc
	arm    armBranch
}

type armBranch int

const (
	armB     armBranch = iota + 1 // b: imm26
	armBCond                      // b.cond, cbz, cbnz: imm19 at bit 5
)

// reloc is a relocation of assembled code or data.
type reloc struct {
	off   int64
	sym   string
	rtype uint32
	add   int64
}

// assembled is the machine code of one section.
type assembled struct {
	code   []byte
	relocs []reloc
	labels map[string]int64
}

// branchSize is the encoded size of an x86-64 branch.
func branchSize(op byte, long bool) int {
	switch {
	case !long:
		return 2
	case op == 0xeb:
		return 5
	}
	return 6
}

// assemble lays out ins (all in one section), relaxes x86-64 branches the
// way assemblers do (start short, lengthen until everything reaches) and
// resolves references to labels of the section.
func assemble(ins []insn, x86 bool) (*assembled, error) {
	long := make([]bool, len(ins))
	offs := make([]int64, len(ins)+1)
	labels := map[string]int64{}
	for {
		changed := false
		for i, in := range ins {
			n := len(in.enc)
			if in.br != nil && x86 {
				n = branchSize(in.br.x86op, long[i])
			}
			offs[i+1] = offs[i] + int64(n)
			if in.label != "" {
				labels[in.label] = offs[i]
			}
		}
		for i, in := range ins {
			if in.br == nil || !x86 || long[i] {
				continue
			}
			t, ok := labels[in.br.target]
			if !ok {
				return nil, fmt.Errorf("wrapper: internal error: undefined label %s", in.br.target)
			}
			if d := t - offs[i+1]; d < -128 || d > 127 {
				long[i], changed = true, true
			}
		}
		if !changed {
			break
		}
	}
	out := &assembled{labels: labels}
	for i, in := range ins {
		b, err := encodeAt(in, offs[i], offs[i+1], long[i], x86, labels, out)
		if err != nil {
			return nil, err
		}
		out.code = append(out.code, b...)
	}
	return out, nil
}

func encodeAt(in insn, at, end int64, long, x86 bool, labels map[string]int64, out *assembled) ([]byte, error) {
	b := append([]byte(nil), in.enc...)
	if in.br != nil {
		t, ok := labels[in.br.target]
		if !ok {
			return nil, fmt.Errorf("wrapper: internal error: undefined label %s", in.br.target)
		}
		if x86 {
			return x86Branch(in.br.x86op, long, t-end), nil
		}
		return armBranchPatch(b, in.br.arm, t-at)
	}
	f := in.fix
	if f == nil {
		return b, nil
	}
	if t, ok := labels[f.sym]; ok && f.local != keepReloc {
		p := at + int64(f.off)
		switch f.local {
		case disp32:
			binary.LittleEndian.PutUint32(b[f.off:], uint32(int32(t+f.add-p)))
		case imm26:
			return armBranchPatch(b, armB, t-at)
		}
		return b, nil
	}
	out.relocs = append(out.relocs, reloc{off: at + int64(f.off), sym: f.sym, rtype: f.rtype, add: f.add})
	return b, nil
}

func x86Branch(op byte, long bool, d int64) []byte {
	switch {
	case !long:
		return []byte{op, byte(int8(d))}
	case op == 0xeb:
		b := []byte{0xe9, 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(b[1:], uint32(int32(d)))
		return b
	}
	b := []byte{0x0f, op + 0x10, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[2:], uint32(int32(d)))
	return b
}

func armBranchPatch(b []byte, kind armBranch, d int64) ([]byte, error) {
	w := binary.LittleEndian.Uint32(b)
	switch kind {
	case armB:
		if d < -(1<<27) || d >= 1<<27 {
			return nil, fmt.Errorf("wrapper: internal error: branch out of range")
		}
		w |= uint32(d/4) & 0x3ffffff
	case armBCond:
		if d < -(1<<20) || d >= 1<<20 {
			return nil, fmt.Errorf("wrapper: internal error: branch out of range")
		}
		w |= (uint32(d/4) & 0x7ffff) << 5
	}
	binary.LittleEndian.PutUint32(b, w)
	return b, nil
}
