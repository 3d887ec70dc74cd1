package ar

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/exactio"
)

// WriterMember is one member to write. Data must yield exactly Size bytes.
//
// LLVM puts a symbol table in front of the members when any member is a
// symbolic file (ELF, bitcode, ...). Set Object for such members and list
// their global defined symbols in Symbols, in the order LLVM iterates them
// (for ELF: .symtab order, see elfobj.File.ArchiveSymbols). Members that are
// raw blobs leave both unset.
type WriterMember struct {
	Name    string
	Size    int64
	Data    io.Reader
	Object  bool
	Symbols []string
}

// sym64Threshold is where LLVM switches to the "/SYM64/" table: when the
// last member header would start at or beyond 4 GiB.
const sym64Threshold = 1 << 32

// WriteArchive writes members as LLVM's writeArchive(K_GNU, NormalSymtab,
// Deterministic) does: mtime, uid and gid 0, mode 644, names of 16 or more
// bytes or containing '/' in a "//" table, data padded to 2 bytes with '\n'.
// Member data is streamed. With no members the output is exactly "!<arch>\n".
func WriteArchive(w io.Writer, members []WriterMember) error {
	return writeArchive(w, members, sym64Threshold)
}

func writeArchive(w io.Writer, members []WriterMember, threshold uint64) error {
	l, err := layout(members, threshold)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(Magic)
	bw.Write(l.symtab)
	if len(l.names) > 0 {
		writeNameTable(bw, l.names)
	}
	for i, m := range members {
		bw.Write(l.headers[i])
		if err := copyExact(bw, m); err != nil {
			return err
		}
		if m.Size%2 == 1 {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// archiveLayout is everything except member data, computed up front so the
// symbol table can hold member offsets before the data is read.
type archiveLayout struct {
	symtab  []byte   // complete symbol table member, or nil
	names   []byte   // long-name table contents
	headers [][]byte // member headers
}

func layout(members []WriterMember, threshold uint64) (*archiveLayout, error) {
	l := &archiveLayout{headers: make([][]byte, len(members))}
	all := make([]byte, 0, headerSize*len(members)) // one allocation for all headers
	namePos := map[string]int{}
	var symNames []byte
	hasObject := false
	var pos, lastHeader uint64 // relative to the first member header
	for i, m := range members {
		if err := checkMember(i, m); err != nil {
			return nil, err
		}
		n := len(all)
		all = memberHeader(all, m, &l.names, namePos)
		l.headers[i] = all[n:len(all):len(all)]
		lastHeader = pos
		pos += headerSize + uint64(m.Size) + uint64(m.Size%2)
		if m.Object || len(m.Symbols) > 0 {
			hasObject = true
		}
		for _, s := range m.Symbols {
			symNames = append(append(symNames, s...), 0)
		}
	}
	if hasObject && len(symNames) == 0 {
		// LLVM writes an empty table for archives of objects without
		// symbols, for the sake of old Solaris tools.
		symNames = []byte{0, 0, 0}
	}
	if len(symNames) == 0 {
		return l, nil
	}
	nameTable := uint64(0)
	if len(l.names) > 0 {
		nameTable = headerSize + uint64(len(l.names)) + uint64(len(l.names)%2)
	}
	wide := false
	start := uint64(len(Magic)) + headerSize + symtabSize(members, symNames, 4) + nameTable
	if start+lastHeader >= threshold {
		wide = true
		start = uint64(len(Magic)) + headerSize + symtabSize(members, symNames, 8) + nameTable
	}
	l.symtab = symbolTable(members, symNames, start, wide)
	return l, nil
}

func checkMember(i int, m WriterMember) error {
	switch {
	case m.Name == "":
		return fmt.Errorf("ar: member %d: empty name", i)
	case strings.ContainsAny(m.Name, "\n\x00"):
		return fmt.Errorf("ar: member %d: name %q contains a newline or NUL", i, m.Name)
	case m.Size < 0 || m.Size > MaxMemberSize:
		return fmt.Errorf("ar: member %q: size %d out of range", m.Name, m.Size)
	case m.Data == nil && m.Size > 0:
		return fmt.Errorf("ar: member %q: no data", m.Name)
	}
	for _, s := range m.Symbols {
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("ar: member %q: symbol %q contains NUL", m.Name, s)
		}
	}
	return nil
}

// memberHeader appends a member header to h, adding long names to *names
// once.
func memberHeader(h []byte, m WriterMember, names *[]byte, namePos map[string]int) []byte {
	start := len(h)
	if len(m.Name) >= 16 || strings.Contains(m.Name, "/") {
		p, ok := namePos[m.Name]
		if !ok {
			p = len(*names)
			namePos[m.Name] = p
			*names = append(append(*names, m.Name...), "/\n"...)
		}
		h = strconv.AppendInt(append(h, '/'), int64(p), 10)
	} else {
		h = append(append(h, m.Name...), '/')
	}
	return appendHeader(h, start, "644", uint64(m.Size))
}

// header formats a 60-byte header with zero date, uid and gid.
func header(name, mode string, size uint64) []byte {
	return appendHeader(append(make([]byte, 0, headerSize), name...), 0, mode, size)
}

// appendHeader completes a header whose name field b[start:] holds: the name
// padded to 16, then date, uid and gid "0", mode and size, left-aligned and
// space-padded to 12, 6, 6, 8 and 10, as "%-16s%-12s%-6s%-6s%-8s%-10d`\n"
// does (a longer field pushes the rest along, as with fmt).
func appendHeader(b []byte, start int, mode string, size uint64) []byte {
	b = pad(b, start, 16)
	for _, w := range []int{12, 6, 6} {
		n := len(b)
		b = pad(append(b, '0'), n, w)
	}
	n := len(b)
	b = pad(append(b, mode...), n, 8)
	n = len(b)
	b = pad(strconv.AppendUint(b, size, 10), n, 10)
	return append(b, '`', '\n')
}

// pad appends spaces to b until the field that starts at start is w bytes.
func pad(b []byte, start, w int) []byte {
	for len(b) < start+w {
		b = append(b, ' ')
	}
	return b
}

func writeNameTable(w *bufio.Writer, names []byte) {
	fmt.Fprintf(w, "%-48s%-10d`\n", "//", len(names)+len(names)%2)
	w.Write(names)
	if len(names)%2 == 1 {
		w.WriteByte('\n')
	}
}

// symtabSize is the size of the symbol table member's data, padded to 2.
func symtabSize(members []WriterMember, symNames []byte, width uint64) uint64 {
	n := uint64(0)
	for _, m := range members {
		n += uint64(len(m.Symbols))
	}
	size := width + n*width + uint64(len(symNames))
	return size + size%2
}

// symbolTable builds the "/" (or "/SYM64/") member: a big-endian count, one
// member-header offset per symbol, then the NUL-terminated names.
func symbolTable(members []WriterMember, symNames []byte, start uint64, wide bool) []byte {
	width := uint64(4)
	name := "/"
	if wide {
		width, name = 8, "/SYM64/"
	}
	size := symtabSize(members, symNames, width)
	b := header(name, "0", size)
	put := func(v uint64) {
		if wide {
			b = binary.BigEndian.AppendUint64(b, v)
		} else {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
	}
	count := uint64(0)
	for _, m := range members {
		count += uint64(len(m.Symbols))
	}
	put(count)
	pos := start
	for _, m := range members {
		for range m.Symbols {
			put(pos)
		}
		pos += headerSize + uint64(m.Size) + uint64(m.Size%2)
	}
	b = append(b, symNames...)
	if (width+count*width+uint64(len(symNames)))%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// copyExact copies m.Size bytes of m.Data and checks that no more follow.
func copyExact(w io.Writer, m WriterMember) error {
	if m.Size == 0 && m.Data == nil {
		return nil
	}
	err := exactio.Copy(w, m.Data, m.Size)
	if se := (*exactio.SizeError)(nil); errors.As(err, &se) {
		return fmt.Errorf("ar: member %q: %w", m.Name, err)
	}
	return err
}
