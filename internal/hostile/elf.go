package hostile

import (
	"bytes"
	"fmt"
)

// ELF constants from the System V ABI (gABI) that the builders write.
const (
	shtProgbits = 1
	shtSymtab   = 2
	shtStrtab   = 3
	shnXIndex   = 0xffff
	shnLoReserv = 0xff00
	elfSymSize  = 24
)

// ELFSection is a section of ELFObject: its sh_name is NameOff into the
// section name table, and a nil Data has no contents in the file (offset
// and size 0).
type ELFSection struct {
	NameOff    uint32
	Type       uint32
	Link, Info uint32
	EntSize    uint64
	Data       []byte
}

// ELFObject lays out an ELF64 little-endian x86-64 relocatable object
// from the gABI's structures: the ELF header, the sections' contents, then
// the section header table, whose entry 0 is the null section and entry
// i+1 is secs[i]. shstrndx is the header index of the section name table.
// Counts from SHN_LORESERVE on use extended numbering (the count in
// section 0's sh_size, the name table index in its sh_link).
func ELFObject(secs []ELFSection, shstrndx int) []byte {
	const ehdr, shdr = 64, 64
	b := make([]byte, ehdr)
	copy(b, "\x7fELF\x02\x01\x01") // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	le.PutUint16(b[16:], 1)        // ET_REL
	le.PutUint16(b[18:], 62)       // EM_X86_64
	le.PutUint32(b[20:], 1)        // e_version
	le.PutUint16(b[52:], ehdr)     // e_ehsize
	le.PutUint16(b[58:], shdr)     // e_shentsize
	offs := make([]uint64, len(secs))
	for i, s := range secs {
		if s.Data != nil {
			for len(b)%8 != 0 {
				b = append(b, 0)
			}
			offs[i] = uint64(len(b))
			b = append(b, s.Data...)
		}
	}
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	shoff := len(b)
	le.PutUint64(b[40:], uint64(shoff))
	n := len(secs) + 1
	null := make([]byte, shdr)
	if n >= shnLoReserv {
		le.PutUint16(b[60:], 0)
		le.PutUint64(null[32:], uint64(n))
	} else {
		le.PutUint16(b[60:], uint16(n))
	}
	if shstrndx >= shnLoReserv {
		le.PutUint16(b[62:], shnXIndex)
		le.PutUint32(null[40:], uint32(shstrndx))
	} else {
		le.PutUint16(b[62:], uint16(shstrndx))
	}
	b = append(b, null...)
	for i, s := range secs {
		h := make([]byte, shdr)
		le.PutUint32(h[0:], s.NameOff)
		le.PutUint32(h[4:], s.Type)
		le.PutUint64(h[24:], offs[i])
		le.PutUint64(h[32:], uint64(len(s.Data)))
		le.PutUint32(h[40:], s.Link)
		le.PutUint32(h[44:], s.Info)
		le.PutUint64(h[48:], 1) // sh_addralign
		if s.Type == shtSymtab {
			le.PutUint64(h[48:], 8) // as compilers write it, and llvm-objcopy makes it
		}
		le.PutUint64(h[56:], s.EntSize)
		b = append(b, h...)
	}
	return b
}

// longStrtab is a string table holding one string of nameLen 'A's at
// offset 1, and the offset into that string of name i with stride.
func longStrtab(nameLen int) []byte {
	return append(append([]byte{0}, bytes.Repeat([]byte{'A'}, nameLen)...), 0)
}

func longOffset(i, nameLen, stride int) uint32 { return uint32(1 + (i*stride)%nameLen) }

// ELFLongNames returns an ELF object of n sections (the null section and
// the name table included) whose names all run to the end of one string
// of nameLen bytes: section i's name starts i*stride (mod nameLen) bytes
// into it, so that every name is a long tail of it, a different one for
// a stride that is not 0. Readers that copy names copy up to nameLen
// bytes n times.
func ELFLongNames(n, nameLen, stride int) []byte {
	secs := []ELFSection{{NameOff: 1, Type: shtStrtab, Data: longStrtab(nameLen)}}
	for i := 2; i < n; i++ {
		secs = append(secs, ELFSection{NameOff: longOffset(i, nameLen, stride), Type: shtProgbits})
	}
	return ELFObject(secs, 1)
}

// ELFLongSymbols returns an ELF object whose symbol table defines n global
// functions in its .text, all named by tails of one string of nameLen
// bytes in .strtab, as ELFLongNames names sections.
func ELFLongSymbols(n, nameLen, stride int) []byte {
	syms := make([]uint32, n)
	for i := range syms {
		syms[i] = longOffset(i, nameLen, stride)
	}
	return elfWithSymbols(longStrtab(nameLen), syms, 1)
}

// ELFSymbolsAt returns an ELF object whose symbol table defines one
// global function per offset of offs into the string table strtab: a name
// may start inside another, sharing its tail.
func ELFSymbolsAt(strtab string, offs []uint32) []byte {
	return elfWithSymbols([]byte(strtab), offs, 1)
}

// ELFSymbolInSection returns a small ELF object (five sections: null,
// .text, .symtab, .strtab, .shstrtab) with one global function "main"
// whose st_shndx is shndx, which need not be a section of the object.
func ELFSymbolInSection(shndx uint16) []byte {
	return elfWithSymbols([]byte("\x00main\x00"), []uint32{1}, shndx)
}

// elfWithSymbols lays out .text, .symtab (the null symbol, then one global
// STT_FUNC per name offset into strtab, defined in section shndx), .strtab
// and .shstrtab.
func elfWithSymbols(strtab []byte, names []uint32, shndx uint16) []byte {
	const shstr = "\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00"
	at := func(s string) uint32 { return uint32(bytes.Index([]byte(shstr), []byte("\x00"+s+"\x00")) + 1) }
	symtab := make([]byte, elfSymSize*(len(names)+1))
	for i, off := range names {
		e := symtab[elfSymSize*(i+1):]
		le.PutUint32(e[0:], off)
		e[4] = 1<<4 | 2 // STB_GLOBAL, STT_FUNC
		le.PutUint16(e[6:], shndx)
	}
	return ELFObject([]ELFSection{
		{NameOff: at(".text"), Type: shtProgbits, Data: []byte{0xc3}},
		{NameOff: at(".symtab"), Type: shtSymtab, Link: 3, Info: 1, EntSize: elfSymSize, Data: symtab},
		{NameOff: at(".strtab"), Type: shtStrtab, Data: strtab},
		{NameOff: at(".shstrtab"), Type: shtStrtab, Data: []byte(shstr)},
	}, 4)
}

// ArLongNames returns a GNU ar archive whose long-name table ("//") holds
// one name of nameLen bytes, and n empty members named "/offset" into it,
// member i i*stride (mod nameLen) bytes into the name, so that each name
// is a long tail of it. Readers that copy names copy up to nameLen bytes
// n times.
func ArLongNames(n, nameLen, stride int) []byte {
	b := []byte("!<arch>\n")
	header := func(name string, size int) {
		b = fmt.Appendf(b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, 0, 0, 0, 0o644, size)
	}
	table := append(bytes.Repeat([]byte{'A'}, nameLen), "/\n"...)
	header("//", len(table))
	b = append(b, table...)
	if len(table)%2 != 0 {
		b = append(b, '\n')
	}
	for i := range n {
		header(fmt.Sprintf("/%d", (i*stride)%nameLen), 0)
	}
	return b
}

// ELFUnterminatedStrtab returns a small relocatable object (null, .text,
// .symtab, .strtab, .shstrtab, then one section per name of bundles, each
// holding one zero byte) whose symbol string table (symbols) or section
// name table (!symbols) lacks its final NUL: the last name runs to the
// table's end. LLVM's readers refuse both.
func ELFUnterminatedStrtab(symbols bool, bundles ...string) []byte {
	shstr := "\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00"
	var extra []uint32
	for _, b := range bundles {
		extra = append(extra, uint32(len(shstr)))
		shstr += b + "\x00"
	}
	at := func(s string) uint32 { return uint32(bytes.Index([]byte(shstr), []byte("\x00"+s+"\x00")) + 1) }
	names := []uint32{at(".text"), at(".symtab"), at(".strtab"), at(".shstrtab")}
	strtab := "\x00main\x00"
	if symbols {
		strtab = strtab[:len(strtab)-1]
	} else {
		shstr = shstr[:len(shstr)-1]
	}
	symtab := make([]byte, 2*elfSymSize)
	le.PutUint32(symtab[elfSymSize:], 1)
	symtab[elfSymSize+4] = 1<<4 | 2 // STB_GLOBAL, STT_FUNC
	le.PutUint16(symtab[elfSymSize+6:], 1)
	secs := []ELFSection{
		{NameOff: names[0], Type: shtProgbits, Data: []byte{0xc3}},
		{NameOff: names[1], Type: shtSymtab, Link: 3, Info: 1, EntSize: elfSymSize, Data: symtab},
		{NameOff: names[2], Type: shtStrtab, Data: []byte(strtab)},
		{NameOff: names[3], Type: shtStrtab, Data: []byte(shstr)},
	}
	for _, off := range extra {
		secs = append(secs, ELFSection{NameOff: off, Type: shtProgbits, Data: []byte{0}})
	}
	return ELFObject(secs, 4)
}
