package wrapper

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// AArch64 encoder for the instruction forms the registration code uses.
// Register 31 is sp as a base or stack operand and xzr elsewhere.

type areg uint32

const (
	fp areg = 29
	lr areg = 30
	sp areg = 31
)

func (r areg) x() string {
	if r == 31 {
		return "xzr"
	}
	return fmt.Sprintf("x%d", r)
}

func (r areg) w() string { return fmt.Sprintf("w%d", r) }

// base names r as a base register, where 31 is sp.
func (r areg) base() string {
	if r == 31 {
		return "sp"
	}
	return r.x()
}

type a64asm struct {
	ins []insn
}

func (a *a64asm) add(text string, word uint32, fix *fixup) {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, word)
	a.ins = append(a.ins, insn{text: text, enc: b, fix: fix})
}

func (a *a64asm) label(l string) { a.ins = append(a.ins, insn{label: l}) }

func memOff(base areg, off int) string {
	if off == 0 {
		return "[" + base.base() + "]"
	}
	return fmt.Sprintf("[%s, #%d]", base.base(), off)
}

func (a *a64asm) stpPre(t1, t2 areg, off int) {
	a.add(fmt.Sprintf("stp %s, %s, [sp, #%d]!", t1.x(), t2.x(), off), 0xa9800000|uint32(off/8)&0x7f<<15|uint32(t2)<<10|31<<5|uint32(t1), nil)
}

func (a *a64asm) ldpPost(t1, t2 areg, off int) {
	a.add(fmt.Sprintf("ldp %s, %s, [sp], #%d", t1.x(), t2.x(), off), 0xa8c00000|uint32(off/8)&0x7f<<15|uint32(t2)<<10|31<<5|uint32(t1), nil)
}

func (a *a64asm) stp(t1, t2, base areg, off int) {
	a.add(fmt.Sprintf("stp %s, %s, %s", t1.x(), t2.x(), memOff(base, off)), 0xa9000000|uint32(off/8)&0x7f<<15|uint32(t2)<<10|uint32(base)<<5|uint32(t1), nil)
}

func (a *a64asm) ldp(t1, t2, base areg, off int) {
	a.add(fmt.Sprintf("ldp %s, %s, %s", t1.x(), t2.x(), memOff(base, off)), 0xa9400000|uint32(off/8)&0x7f<<15|uint32(t2)<<10|uint32(base)<<5|uint32(t1), nil)
}

// Loads and stores with an unsigned, scaled offset.
func (a *a64asm) str(t, base areg, off int) {
	a.add(fmt.Sprintf("str %s, %s", t.x(), memOff(base, off)), 0xf9000000|uint32(off/8)<<10|uint32(base)<<5|uint32(t), nil)
}

func (a *a64asm) ldr(t, base areg, off int) {
	a.add(fmt.Sprintf("ldr %s, %s", t.x(), memOff(base, off)), 0xf9400000|uint32(off/8)<<10|uint32(base)<<5|uint32(t), nil)
}

func (a *a64asm) ldr32(t, base areg, off int) {
	a.add(fmt.Sprintf("ldr %s, %s", t.w(), memOff(base, off)), 0xb9400000|uint32(off/4)<<10|uint32(base)<<5|uint32(t), nil)
}

func (a *a64asm) ldrh(t, base areg, off int) {
	a.add(fmt.Sprintf("ldrh %s, %s", t.w(), memOff(base, off)), 0x79400000|uint32(off/2)<<10|uint32(base)<<5|uint32(t), nil)
}

// addImm: add xd, xn, #imm (sp allowed for both); subSP: sub sp, sp, #imm
func (a *a64asm) addImm(d, n areg, imm int) {
	text := fmt.Sprintf("add %s, %s, #%d", d.base(), n.base(), imm)
	if imm == 0 {
		text = fmt.Sprintf("mov %s, %s", d.base(), n.base())
	}
	a.add(text, 0x91000000|uint32(imm)<<10|uint32(n)<<5|uint32(d), nil)
}

func (a *a64asm) subSP(imm int) {
	a.add(fmt.Sprintf("sub sp, sp, #%d", imm), 0xd1000000|uint32(imm)<<10|31<<5|31, nil)
}

// addr loads the address of sym+add: adrp and add :lo12:.
func (a *a64asm) addr(d areg, sym string, add int64) {
	s := symText(sym, add)
	a.add(fmt.Sprintf("adrp %s, %s", d.x(), s), 0x90000000|uint32(d), &fixup{sym: sym, add: add, rtype: uint32(elf.R_AARCH64_ADR_PREL_PG_HI21)})
	a.add(fmt.Sprintf("add %s, %s, :lo12:%s", d.x(), d.x(), s), 0x91000000|uint32(d)<<5|uint32(d), &fixup{sym: sym, add: add, rtype: uint32(elf.R_AARCH64_ADD_ABS_LO12_NC)})
}

// loadGOT loads the GOT entry of sym (zero for an undefined weak symbol).
func (a *a64asm) loadGOT(d areg, sym string) {
	a.add(fmt.Sprintf("adrp %s, :got:%s", d.x(), sym), 0x90000000|uint32(d), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_ADR_GOT_PAGE)})
	a.add(fmt.Sprintf("ldr %s, [%s, :got_lo12:%s]", d.x(), d.x(), sym), 0xf9400000|uint32(d)<<5|uint32(d), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_LD64_GOT_LO12_NC)})
}

// storeSym / loadSym: str/ldr t, [tmp, :lo12:sym] after adrp tmp, sym.
func (a *a64asm) storeSym(t, tmp areg, sym string) {
	a.add(fmt.Sprintf("adrp %s, %s", tmp.x(), sym), 0x90000000|uint32(tmp), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_ADR_PREL_PG_HI21)})
	a.add(fmt.Sprintf("str %s, [%s, :lo12:%s]", t.x(), tmp.x(), sym), 0xf9000000|uint32(tmp)<<5|uint32(t), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_LDST64_ABS_LO12_NC)})
}

func (a *a64asm) loadSym(t, tmp areg, sym string) {
	a.add(fmt.Sprintf("adrp %s, %s", tmp.x(), sym), 0x90000000|uint32(tmp), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_ADR_PREL_PG_HI21)})
	a.add(fmt.Sprintf("ldr %s, [%s, :lo12:%s]", t.x(), tmp.x(), sym), 0xf9400000|uint32(tmp)<<5|uint32(t), &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_LDST64_ABS_LO12_NC)})
}

func (a *a64asm) bl(sym string) {
	a.add("bl "+sym, 0x94000000, &fixup{sym: sym, rtype: uint32(elf.R_AARCH64_CALL26), local: imm26})
}

func (a *a64asm) blr(r areg) { a.add("blr "+r.x(), 0xd63f0000|uint32(r)<<5, nil) }
func (a *a64asm) ret()       { a.add("ret", 0xd65f03c0, nil) }

func (a *a64asm) branch(text string, word uint32, kind armBranch, target string) {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, word)
	a.ins = append(a.ins, insn{text: text + " " + target, enc: b, br: &branch{target: target, arm: kind}})
}

func (a *a64asm) b(target string)   { a.branch("b", 0x14000000, armB, target) }
func (a *a64asm) beq(target string) { a.branch("b.eq", 0x54000000, armBCond, target) }
func (a *a64asm) bne(target string) { a.branch("b.ne", 0x54000001, armBCond, target) }
func (a *a64asm) cbz(r areg, target string) {
	a.branch("cbz "+r.x()+",", 0xb4000000|uint32(r), armBCond, target)
}
func (a *a64asm) cbnz(r areg, target string) {
	a.branch("cbnz "+r.x()+",", 0xb5000000|uint32(r), armBCond, target)
}

func (a *a64asm) mov(d, m areg) {
	a.add(fmt.Sprintf("mov %s, %s", d.x(), m.x()), 0xaa0003e0|uint32(m)<<16|uint32(d), nil)
}

// movZero: mov xd, #0; movMinus1: mov wd, #-1
func (a *a64asm) movZero(d areg) { a.add(fmt.Sprintf("mov %s, #0", d.x()), 0xd2800000|uint32(d), nil) }
func (a *a64asm) movMinus1(d areg) {
	a.add(fmt.Sprintf("mov %s, #-1", d.w()), 0x12800000|uint32(d), nil)
}

func (a *a64asm) cmpImm(n areg, imm int) {
	a.add(fmt.Sprintf("cmp %s, #%d", n.w(), imm), 0x7100001f|uint32(imm)<<10|uint32(n)<<5, nil)
}

func (a *a64asm) cmp(n, m areg) {
	a.add(fmt.Sprintf("cmp %s, %s", n.x(), m.x()), 0xeb00001f|uint32(m)<<16|uint32(n)<<5, nil)
}

// ubfx: wd = (wn >> lsb) & (1<<width - 1)
func (a *a64asm) ubfx(d, n areg, lsb, width int) {
	a.add(fmt.Sprintf("ubfx %s, %s, #%d, #%d", d.w(), n.w(), lsb, width),
		0x53000000|uint32(lsb)<<16|uint32(lsb+width-1)<<10|uint32(n)<<5|uint32(d), nil)
}

// a64Funcs generates the registration functions of p.
func a64Funcs(p *plan) []insn {
	a := &a64asm{}
	machineFuncs(a, p)
	return a.ins
}

func (a *a64asm) goTo(l string) { a.b(l) }

// enterFunc sets up a frame; the constructor's also saves x19, which holds
// the handle or the weak function.
func (a *a64asm) enterFunc(ctor bool) {
	if !ctor {
		a.stpPre(fp, lr, -16)
		a.addImm(fp, sp, 0)
		return
	}
	a.stpPre(fp, lr, -32)
	a.addImm(fp, sp, 0)
	a.str(19, sp, 16)
}

func (a *a64asm) leaveFunc(ctor bool) {
	if ctor {
		a.ldr(19, sp, 16)
		a.ldpPost(fp, lr, 32)
	} else {
		a.ldpPost(fp, lr, 16)
	}
	a.ret()
}

func (a *a64asm) skipIfNull(fn, skip string) {
	a.loadGOT(19, fn)
	a.cbz(19, skip)
}

func (a *a64asm) stepArg(j int, g arg, fresh bool) {
	switch {
	case g.kind == argAddr:
		a.addr(areg(j), g.sym, 0)
	case g.kind == argLoad:
		a.loadSym(areg(j), 8, g.sym)
	case !fresh || j != 0:
		a.mov(areg(j), 19)
	}
}

func (a *a64asm) stepCall(s regStep) {
	if s.ifDefined {
		a.blr(19)
	} else {
		a.bl(s.fn)
	}
}

func (a *a64asm) keepHandle(sym string) {
	a.mov(19, 0)
	a.storeSym(0, 8, sym)
}

// The entry loop: x20 is the entry, x21 the end, x19 the handle, x5 the
// entry's size (RegisterVar's sixth argument), w10 its flags, w11 its type;
// 16 bytes at the stack top hold outgoing stack arguments.
func (a *a64asm) enterLoop(l entryLayout) {
	a.subSP(64)
	a.stp(fp, lr, sp, 16)
	a.addImm(fp, sp, 16)
	a.stp(19, 20, sp, 32)
	a.str(21, sp, 48)
	a.mov(19, 0)
	a.addr(20, l.start, 0)
	a.addr(21, l.stop, 0)
}

func (a *a64asm) exitIfDone(done string) {
	a.cmp(20, 21)
	a.beq(done)
}

func (a *a64asm) skipOtherKind(l entryLayout, kind int, next string) {
	a.ldrh(8, 20, int(l.kindOff))
	a.cmpImm(8, kind)
	a.bne(next)
}

func (a *a64asm) branchIfSized(l entryLayout, to string) {
	a.ldr(5, 20, int(l.sizeOff))
	a.cbnz(5, to)
}

func (a *a64asm) loadType(l entryLayout) {
	a.ldr32(10, 20, int(l.flagsOff))
	a.ubfx(11, 10, 0, 3)
}

func (a *a64asm) branchIfType(typ int, to string) {
	a.cmpImm(11, typ)
	a.beq(to)
}

func (a *a64asm) advance(l entryLayout) { a.addImm(20, 20, int(l.size)) }

func (a *a64asm) leaveLoop() {
	a.ldr(21, sp, 48)
	a.ldp(19, 20, sp, 32)
	a.ldp(fp, lr, sp, 16)
	a.addImm(sp, sp, 64)
	a.ret()
}

// callWith calls c for the entry at x20: the handle is in x19, the
// entry's size in x5 and its flags in w10. Copies of x19 and x5 come first,
// before loads overwrite x5; then the arguments in order. Arguments past
// the eighth, zeros all, are stored in pairs at the stack top.
func (a *a64asm) callWith(l entryLayout, c call) {
	n := min(len(c.args), 8)
	for i, g := range c.args[:n] {
		r := areg(i)
		switch {
		case g.kind == argHandle:
			a.mov(r, 19)
		case g.kind == argField && g.field == fSize && r != 5:
			a.mov(r, 5)
		}
	}
	for i, g := range c.args[:n] {
		r := areg(i)
		switch {
		case g.kind == argHandle || g.kind == argField && g.field == fSize:
		case sameAs(c.args, i):
			a.mov(r, r-1)
		case g.kind == argField && g.typ == tI32:
			a.ldr32(r, 20, int(l.offset(g.field)))
		case g.kind == argField:
			a.ldr(r, 20, int(l.offset(g.field)))
		case g.kind == argFlag:
			a.ubfx(r, 10, g.bit, 1)
		case g.val == 0:
			a.movZero(r)
		default: // -1, the only other constant the plan passes
			a.movMinus1(r)
		}
	}
	for i := n; i < len(c.args); i += 2 {
		if i+1 < len(c.args) {
			a.stp(31, 31, sp, 8*(i-n))
		} else {
			a.str(31, sp, 8*(i-n))
		}
	}
	a.bl(c.fn)
}
