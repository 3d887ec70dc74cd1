package wrapper

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// x86-64 encoder for the few instruction forms the registration code uses.
// Text is AT&T syntax, accepted by GNU as and clang.

type xreg int

const (
	rax xreg = iota
	rcx
	rdx
	rbx
	rsp
	rbp
	rsi
	rdi
	r8
	r9
	r10
	r11
	r12
	r13
	r14
	r15
)

var xnames64 = [...]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}
var xnames32 = [...]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"}

func (r xreg) q() string { return "%" + xnames64[r] }
func (r xreg) l() string { return "%" + xnames32[r] }
func (r xreg) lo() byte  { return byte(r) & 7 }
func (r xreg) hi() bool  { return r >= r8 }

// rex builds a REX prefix; it returns nil when none is needed.
func rex(w bool, reg, base xreg) []byte {
	b := byte(0x40)
	if w {
		b |= 8
	}
	if reg.hi() {
		b |= 4
	}
	if base.hi() {
		b |= 1
	}
	if b == 0x40 {
		return nil
	}
	return []byte{b}
}

type x86asm struct {
	ins []insn
}

func (a *x86asm) add(text string, enc []byte, fix *fixup) {
	a.ins = append(a.ins, insn{text: text, enc: enc, fix: fix})
}

func (a *x86asm) label(l string) { a.ins = append(a.ins, insn{label: l}) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func symText(sym string, add int64) string {
	if add != 0 {
		return fmt.Sprintf("%s%+d", sym, add)
	}
	return sym
}

func (a *x86asm) push(r xreg) {
	a.add("pushq "+r.q(), cat(rex(false, 0, r), []byte{0x50 + r.lo()}), nil)
}
func (a *x86asm) pop(r xreg) { a.add("popq "+r.q(), cat(rex(false, 0, r), []byte{0x58 + r.lo()}), nil) }
func (a *x86asm) ret()       { a.add("retq", []byte{0xc3}, nil) }

// ripOp emits opcode with a RIP-relative memory operand referring to sym.
func (a *x86asm) ripOp(text string, w bool, op byte, r xreg, sym string, add int64, rtype elf.R_X86_64) {
	enc := cat(rex(w, r, 0), []byte{op, r.lo()<<3 | 5, 0, 0, 0, 0})
	local := disp32
	if rtype == elf.R_X86_64_REX_GOTPCRELX {
		local = keepReloc
	}
	a.add(text, enc, &fixup{off: len(enc) - 4, sym: sym, add: add - 4, rtype: uint32(rtype), local: local})
}

// lea: leaq sym+add(%rip), %r
func (a *x86asm) lea(sym string, add int64, r xreg) {
	a.ripOp(fmt.Sprintf("leaq %s(%%rip), %s", symText(sym, add), r.q()), true, 0x8d, r, sym, add, elf.R_X86_64_PC32)
}

// loadGOT: movq sym@GOTPCREL(%rip), %r
func (a *x86asm) loadGOT(sym string, r xreg) {
	a.ripOp(fmt.Sprintf("movq %s@GOTPCREL(%%rip), %s", sym, r.q()), true, 0x8b, r, sym, 0, elf.R_X86_64_REX_GOTPCRELX)
}

// storeRIP: movq %r, sym(%rip); loadRIP: movq sym(%rip), %r
func (a *x86asm) storeRIP(r xreg, sym string) {
	a.ripOp(fmt.Sprintf("movq %s, %s(%%rip)", r.q(), sym), true, 0x89, r, sym, 0, elf.R_X86_64_PC32)
}

func (a *x86asm) loadRIP(sym string, r xreg) {
	a.ripOp(fmt.Sprintf("movq %s(%%rip), %s", sym, r.q()), true, 0x8b, r, sym, 0, elf.R_X86_64_PC32)
}

// call: callq sym@PLT for external functions, callq sym for local ones.
func (a *x86asm) call(sym string, external bool) {
	text := "callq " + sym
	if external {
		text += "@PLT"
	}
	a.add(text, []byte{0xe8, 0, 0, 0, 0}, &fixup{off: 1, sym: sym, add: -4, rtype: uint32(elf.R_X86_64_PLT32), local: disp32})
}

func (a *x86asm) callReg(r xreg) {
	a.add("callq *"+r.q(), cat(rex(false, 0, r), []byte{0xff, 0xd0 | r.lo()}), nil)
}

func modrmRR(op byte, w bool, reg, rm xreg) []byte {
	return cat(rex(w, reg, rm), []byte{op, 0xc0 | reg.lo()<<3 | rm.lo()})
}

// movq %src, %dst and movl %src, %dst
func (a *x86asm) mov(src, dst xreg) {
	a.add(fmt.Sprintf("movq %s, %s", src.q(), dst.q()), modrmRR(0x89, true, src, dst), nil)
}

func (a *x86asm) mov32(src, dst xreg) {
	a.add(fmt.Sprintf("movl %s, %s", src.l(), dst.l()), modrmRR(0x89, false, src, dst), nil)
}

func (a *x86asm) test(r xreg) {
	a.add(fmt.Sprintf("testq %s, %s", r.q(), r.q()), modrmRR(0x85, true, r, r), nil)
}

// cmp: cmpq %src, %dst (flags of dst - src)
func (a *x86asm) cmp(src, dst xreg) {
	a.add(fmt.Sprintf("cmpq %s, %s", src.q(), dst.q()), modrmRR(0x39, true, src, dst), nil)
}

func (a *x86asm) xor32(r xreg) {
	a.add(fmt.Sprintf("xorl %s, %s", r.l(), r.l()), modrmRR(0x31, false, r, r), nil)
}

// mem encodes a [base+disp] operand (base neither rsp/r12 nor rbp/r13, which
// need other forms, except rsp through memRSP).
func mem(reg, base xreg, disp int32) []byte {
	switch {
	case disp == 0:
		return []byte{reg.lo()<<3 | base.lo()}
	case disp >= -128 && disp <= 127:
		return []byte{0x40 | reg.lo()<<3 | base.lo(), byte(int8(disp))}
	}
	b := []byte{0x80 | reg.lo()<<3 | base.lo(), 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[1:], uint32(disp))
	return b
}

func memText(disp int32, base xreg) string {
	if disp == 0 {
		return "(" + base.q() + ")"
	}
	return fmt.Sprintf("%d(%s)", disp, base.q())
}

// load: movq disp(%base), %r; load32: movl; loadZX16: movzwl
func (a *x86asm) load(disp int32, base, r xreg) {
	a.add(fmt.Sprintf("movq %s, %s", memText(disp, base), r.q()), cat(rex(true, r, base), []byte{0x8b}, mem(r, base, disp)), nil)
}

func (a *x86asm) load32(disp int32, base, r xreg) {
	a.add(fmt.Sprintf("movl %s, %s", memText(disp, base), r.l()), cat(rex(false, r, base), []byte{0x8b}, mem(r, base, disp)), nil)
}

func (a *x86asm) loadZX16(disp int32, base, r xreg) {
	a.add(fmt.Sprintf("movzwl %s, %s", memText(disp, base), r.l()), cat(rex(false, r, base), []byte{0x0f, 0xb7}, mem(r, base, disp)), nil)
}

// memRSP encodes [rsp+disp], which needs a SIB byte.
func memRSP(reg xreg, disp int32) []byte {
	if disp == 0 {
		return []byte{reg.lo()<<3 | 4, 0x24}
	}
	return []byte{0x44 | reg.lo()<<3, 0x24, byte(int8(disp))}
}

// storeZeroRSP: movq $0, disp(%rsp)
func (a *x86asm) storeZeroRSP(disp int32) {
	a.add(fmt.Sprintf("movq $0, %s", memText(disp, rsp)), cat([]byte{0x48, 0xc7}, memRSP(0, disp), []byte{0, 0, 0, 0}), nil)
}

// store32RSP: movl %r, disp(%rsp)
func (a *x86asm) store32RSP(r xreg, disp int32) {
	a.add(fmt.Sprintf("movl %s, %s", r.l(), memText(disp, rsp)), cat(rex(false, r, 0), []byte{0x89}, memRSP(r, disp)), nil)
}

// Group-1 and shift operations with an 8-bit immediate.
func (a *x86asm) imm8(mn string, w bool, op, ext byte, imm int8, r xreg) {
	name := r.l()
	if w {
		name = r.q()
	}
	a.add(fmt.Sprintf("%s $%d, %s", mn, imm, name), cat(rex(w, 0, r), []byte{op, 0xc0 | ext<<3 | r.lo(), byte(imm)}), nil)
}

func (a *x86asm) addq(imm int8, r xreg) { a.imm8("addq", true, 0x83, 0, imm, r) }
func (a *x86asm) subq(imm int8, r xreg) { a.imm8("subq", true, 0x83, 5, imm, r) }
func (a *x86asm) andl(imm int8, r xreg) { a.imm8("andl", false, 0x83, 4, imm, r) }
func (a *x86asm) cmpl(imm int8, r xreg) { a.imm8("cmpl", false, 0x83, 7, imm, r) }
func (a *x86asm) shrl(imm int8, r xreg) { a.imm8("shrl", false, 0xc1, 5, imm, r) }

// movl $imm, %r
func (a *x86asm) movImm(imm int32, r xreg) {
	enc := cat(rex(false, 0, r), []byte{0xb8 + r.lo(), 0, 0, 0, 0})
	binary.LittleEndian.PutUint32(enc[len(enc)-4:], uint32(imm))
	a.add(fmt.Sprintf("movl $%d, %s", imm, r.l()), enc, nil)
}

// jump: jmp/je/jne to a label of this section.
func (a *x86asm) jump(mn string, target string) {
	op := map[string]byte{"jmp": 0xeb, "je": 0x74, "jne": 0x75}[mn]
	a.ins = append(a.ins, insn{text: mn + " " + target, br: &branch{target: target, x86op: op}})
}

// x86Funcs generates the registration functions of p.
func x86Funcs(p *plan) []insn {
	a := &x86asm{}
	machineFuncs(a, p)
	return a.ins
}

func (a *x86asm) goTo(l string) { a.jump("jmp", l) }

// enterFunc: the destructor's push realigns the stack for the calls; the
// constructor's saves rbx, which holds the handle or the weak function.
func (a *x86asm) enterFunc(ctor bool) {
	if ctor {
		a.push(rbx)
	} else {
		a.push(rax)
	}
}

func (a *x86asm) leaveFunc(ctor bool) {
	if ctor {
		a.pop(rbx)
	} else {
		a.pop(rax)
	}
	a.ret()
}

func (a *x86asm) skipIfNull(fn, skip string) {
	a.loadGOT(fn, rbx)
	a.test(rbx)
	a.jump("je", skip)
}

func (a *x86asm) stepArg(j int, g arg, fresh bool) {
	switch {
	case g.kind == argAddr:
		a.lea(g.sym, 0, x86Args[j])
	case g.kind == argLoad:
		a.loadRIP(g.sym, x86Args[j])
	case fresh:
		a.mov(rax, x86Args[j])
	default:
		a.mov(rbx, x86Args[j])
	}
}

func (a *x86asm) stepCall(s regStep) {
	if s.ifDefined {
		a.callReg(rbx)
	} else {
		a.call(s.fn, !s.local)
	}
}

func (a *x86asm) keepHandle(sym string) {
	a.storeRIP(rax, sym)
	a.mov(rax, rbx)
}

// The entry loop: rbx is the entry, r13 the end, r12 the handle, r9 the
// entry's size (RegisterVar's sixth argument), r10 its flags; 32 bytes at
// the stack top hold outgoing stack arguments.
func (a *x86asm) enterLoop(l entryLayout) {
	a.push(rbx)
	a.push(r12)
	a.push(r13)
	a.subq(32, rsp)
	a.mov(rdi, r12)
	a.lea(l.start, 0, rbx)
	a.lea(l.stop, 0, r13)
}

func (a *x86asm) exitIfDone(done string) {
	a.cmp(r13, rbx)
	a.jump("je", done)
}

func (a *x86asm) skipOtherKind(l entryLayout, kind int, next string) {
	a.loadZX16(int32(l.kindOff), rbx, rax)
	a.cmpl(int8(kind), rax)
	a.jump("jne", next)
}

func (a *x86asm) branchIfSized(l entryLayout, to string) {
	a.load(int32(l.sizeOff), rbx, r9)
	a.test(r9)
	a.jump("jne", to)
}

func (a *x86asm) loadType(l entryLayout) {
	a.load32(int32(l.flagsOff), rbx, r10)
	a.mov32(r10, rax)
	a.andl(7, rax)
}

func (a *x86asm) branchIfType(typ int, to string) {
	a.cmpl(int8(typ), rax)
	a.jump("je", to)
}

func (a *x86asm) advance(l entryLayout) { a.addq(int8(l.size), rbx) }

func (a *x86asm) leaveLoop() {
	a.addq(32, rsp)
	a.pop(r13)
	a.pop(r12)
	a.pop(rbx)
	a.ret()
}

// x86Args are the registers of the first six integer arguments; the
// others go to the stack, 8 bytes each from the stack top.
var x86Args = [...]xreg{rdi, rsi, rdx, rcx, r8, r9}

// callWith calls c for the entry at rbx, its arguments placed in order:
// the handle is in r12, the entry's size in r9 and its flags in r10.
func (a *x86asm) callWith(l entryLayout, c call) {
	for i, g := range c.args {
		if i >= len(x86Args) {
			a.stackArg(g, int32(8*(i-len(x86Args))))
			continue
		}
		r := x86Args[i]
		switch {
		case g.kind == argHandle:
			a.mov(r12, r)
		case sameAs(c.args, i):
			a.mov(x86Args[i-1], r)
		case g.kind == argField && g.field == fSize:
			if r != r9 {
				a.mov(r9, r)
			}
		case g.kind == argField && g.typ == tI32:
			a.load32(int32(l.offset(g.field)), rbx, r)
		case g.kind == argField:
			a.load(int32(l.offset(g.field)), rbx, r)
		case g.kind == argFlag:
			a.flagBit(r10, int8(g.bit), r)
		case g.val == 0:
			a.xor32(r)
		default:
			a.movImm(int32(g.val), r)
		}
	}
	a.call(c.fn, true)
}

// stackArg stores a flag bit (32 bits) or a zero (64 bits) at disp(%rsp).
func (a *x86asm) stackArg(g arg, disp int32) {
	if g.kind == argFlag {
		a.flagBit(r10, int8(g.bit), rax)
		a.store32RSP(rax, disp)
		return
	}
	a.storeZeroRSP(disp)
}

// flagBit extracts bit n of the flags in src into dst (32-bit).
func (a *x86asm) flagBit(src xreg, n int8, dst xreg) {
	a.mov32(src, dst)
	a.shrl(n, dst)
	a.andl(1, dst)
}
