package elfobj

import (
	"debug/elf"
	"encoding/binary"
)

// codec holds the on-disk layout of one ELF class and byte order; every
// field offset is written down here and nowhere else.
type codec struct {
	is64 bool
	bo   binary.ByteOrder
}

func (c codec) ehdrSize() int { return pick(c.is64, 64, 52) }
func (c codec) shdrSize() int { return pick(c.is64, 64, 40) }
func (c codec) phdrSize() int { return pick(c.is64, 56, 32) }
func (c codec) symSize() int  { return pick(c.is64, 24, 16) }
func (c codec) wordSize() int { return pick(c.is64, 8, 4) }

func pick(is64 bool, a, b int) int {
	if is64 {
		return a
	}
	return b
}

// maxWord is the largest address-sized value the class can store.
func (c codec) maxWord() uint64 {
	if c.is64 {
		return ^uint64(0)
	}
	return 0xffffffff
}

func (c codec) word(b []byte) uint64 {
	if c.is64 {
		return c.bo.Uint64(b)
	}
	return uint64(c.bo.Uint32(b))
}

func (c codec) putWord(b []byte, v uint64) {
	if c.is64 {
		c.bo.PutUint64(b, v)
	} else {
		c.bo.PutUint32(b, uint32(v))
	}
}

// ELF header fields that differ between the classes.
type ehdrFields struct {
	entry, phoff, shoff                                  uint64
	flags                                                uint32
	ehsize, phentsize, phnum, shentsize, shnum, shstrndx uint16
}

func (c codec) ehdrOffsets() (entry, phoff, shoff, flags, ehsize int) {
	if c.is64 {
		return 24, 32, 40, 48, 52
	}
	return 24, 28, 32, 36, 40
}

func (c codec) decodeEhdr(b []byte) ehdrFields {
	entry, phoff, shoff, flags, ehsize := c.ehdrOffsets()
	return ehdrFields{
		entry:     c.word(b[entry:]),
		phoff:     c.word(b[phoff:]),
		shoff:     c.word(b[shoff:]),
		flags:     c.bo.Uint32(b[flags:]),
		ehsize:    c.bo.Uint16(b[ehsize:]),
		phentsize: c.bo.Uint16(b[ehsize+2:]),
		phnum:     c.bo.Uint16(b[ehsize+4:]),
		shentsize: c.bo.Uint16(b[ehsize+6:]),
		shnum:     c.bo.Uint16(b[ehsize+8:]),
		shstrndx:  c.bo.Uint16(b[ehsize+10:]),
	}
}

// patchEhdr rewrites the section-table fields of a raw ELF header.
func (c codec) patchEhdr(b []byte, shoff uint64, shnum, shstrndx uint16) {
	_, _, off, _, ehsize := c.ehdrOffsets()
	c.putWord(b[off:], shoff)
	c.bo.PutUint16(b[ehsize+6:], uint16(c.shdrSize()))
	c.bo.PutUint16(b[ehsize+8:], shnum)
	c.bo.PutUint16(b[ehsize+10:], shstrndx)
}

func (c codec) decodeShdr(b []byte) Section {
	s := Section{nameOff: c.bo.Uint32(b[0:]), Type: c.bo.Uint32(b[4:])}
	if c.is64 {
		s.Flags, s.Addr, s.Offset, s.Size = c.bo.Uint64(b[8:]), c.bo.Uint64(b[16:]), c.bo.Uint64(b[24:]), c.bo.Uint64(b[32:])
		s.Link, s.Info = c.bo.Uint32(b[40:]), c.bo.Uint32(b[44:])
		s.Align, s.EntSize = c.bo.Uint64(b[48:]), c.bo.Uint64(b[56:])
		return s
	}
	s.Flags, s.Addr, s.Offset, s.Size = uint64(c.bo.Uint32(b[8:])), uint64(c.bo.Uint32(b[12:])), uint64(c.bo.Uint32(b[16:])), uint64(c.bo.Uint32(b[20:]))
	s.Link, s.Info = c.bo.Uint32(b[24:]), c.bo.Uint32(b[28:])
	s.Align, s.EntSize = uint64(c.bo.Uint32(b[32:])), uint64(c.bo.Uint32(b[36:]))
	return s
}

// encodeShdr appends a section header; callers check that values fit.
func (c codec) encodeShdr(b []byte, s Section) []byte {
	out := make([]byte, c.shdrSize())
	c.bo.PutUint32(out[0:], s.nameOff)
	c.bo.PutUint32(out[4:], s.Type)
	if c.is64 {
		c.bo.PutUint64(out[8:], s.Flags)
		c.bo.PutUint64(out[16:], s.Addr)
		c.bo.PutUint64(out[24:], s.Offset)
		c.bo.PutUint64(out[32:], s.Size)
		c.bo.PutUint32(out[40:], s.Link)
		c.bo.PutUint32(out[44:], s.Info)
		c.bo.PutUint64(out[48:], s.Align)
		c.bo.PutUint64(out[56:], s.EntSize)
	} else {
		c.bo.PutUint32(out[8:], uint32(s.Flags))
		c.bo.PutUint32(out[12:], uint32(s.Addr))
		c.bo.PutUint32(out[16:], uint32(s.Offset))
		c.bo.PutUint32(out[20:], uint32(s.Size))
		c.bo.PutUint32(out[24:], s.Link)
		c.bo.PutUint32(out[28:], s.Info)
		c.bo.PutUint32(out[32:], uint32(s.Align))
		c.bo.PutUint32(out[36:], uint32(s.EntSize))
	}
	return append(b, out...)
}

// shdrFits reports whether every field of s fits the class.
func (c codec) shdrFits(s Section) bool {
	m := c.maxWord()
	return s.Flags <= m && s.Addr <= m && s.Offset <= m && s.Size <= m && s.Align <= m && s.EntSize <= m
}

func (c codec) decodePhdr(b []byte) Prog {
	if c.is64 {
		return Prog{
			Type: c.bo.Uint32(b[0:]), Flags: c.bo.Uint32(b[4:]), Offset: c.bo.Uint64(b[8:]),
			Vaddr: c.bo.Uint64(b[16:]), Paddr: c.bo.Uint64(b[24:]), Filesz: c.bo.Uint64(b[32:]),
			Memsz: c.bo.Uint64(b[40:]), Align: c.bo.Uint64(b[48:]),
		}
	}
	return Prog{
		Type: c.bo.Uint32(b[0:]), Offset: uint64(c.bo.Uint32(b[4:])), Vaddr: uint64(c.bo.Uint32(b[8:])),
		Paddr: uint64(c.bo.Uint32(b[12:])), Filesz: uint64(c.bo.Uint32(b[16:])), Memsz: uint64(c.bo.Uint32(b[20:])),
		Flags: c.bo.Uint32(b[24:]), Align: uint64(c.bo.Uint32(b[28:])),
	}
}

// Symbol fields used when rewriting or listing symbols.
func (c codec) symShndxOff() int { return pick(c.is64, 6, 14) }
func (c codec) symInfoOff() int  { return pick(c.is64, 4, 12) }
func (c codec) symOtherOff() int { return c.symInfoOff() + 1 }

type rawSym struct {
	name  uint32
	info  uint8
	other uint8
	shndx uint16
}

func (c codec) decodeSym(b []byte) rawSym {
	return rawSym{
		name:  c.bo.Uint32(b[0:]),
		info:  b[c.symInfoOff()],
		other: b[c.symOtherOff()],
		shndx: c.bo.Uint16(b[c.symShndxOff():]),
	}
}

func (s rawSym) bind() elf.SymBind { return elf.ST_BIND(s.info) }
func (s rawSym) typ() elf.SymType  { return elf.ST_TYPE(s.info) }
