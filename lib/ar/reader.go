package ar

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/exactio"
	"github.com/rules-offload/rules_offload/lib/strtab"
)

// maxNameTable caps the GNU long-name table ("//") we are willing to load.
const maxNameTable = 64 << 20

// maxBSDName caps a BSD "#1/len" name.
const maxBSDName = 1 << 16

// readChunk is the largest single read made for a table.
const readChunk = 1 << 20

// Member describes one archive member. Offset and Size locate its data
// within the archive (for BSD "#1/len" members, after the inline name).
type Member struct {
	Name         string
	HeaderOffset int64 // offset of the 60-byte member header
	Offset       int64 // offset of the member data
	Size         int64 // size of the member data
	ModTime      int64 // seconds since the Unix epoch
	UID, GID     int
	Mode         uint32
}

// Open returns a reader for the member's data in r, the archive it came from.
func (m *Member) Open(r io.ReaderAt) *io.SectionReader {
	return io.NewSectionReader(r, m.Offset, m.Size)
}

// Reader iterates over the members of an archive in order.
type Reader struct {
	r     io.ReaderAt
	size  int64
	next  int64         // offset of the next member header
	names *strtab.Table // GNU long-name table, once seen
	err   error         // sticky
}

// NewReader checks the archive magic of r, which holds size bytes.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	if size < int64(len(Magic)) {
		return nil, ErrTooSmall
	}
	var m [len(Magic)]byte
	if err := exactio.ReadAt(r, m[:], 0); err != nil {
		return nil, err
	}
	switch string(m[:]) {
	case Magic:
	case ThinMagic:
		return nil, ErrThin
	default:
		return nil, ErrNotArchive
	}
	return &Reader{r: r, size: size, next: int64(len(Magic))}, nil
}

// Next returns the next regular member, skipping symbol and name tables. It
// returns io.EOF after the last member. A member whose name is not a local
// path is returned together with ErrInsecurePath; iteration may continue.
func (r *Reader) Next() (*Member, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		m, err := r.readMember()
		if err != nil {
			r.err = err
			return nil, err
		}
		if m == nil {
			continue // a table, already consumed
		}
		if !filepath.IsLocal(m.Name) {
			return m, ErrInsecurePath
		}
		return m, nil
	}
}

// readMember parses the header at r.next. It returns a nil member for
// symbol and name tables.
func (r *Reader) readMember() (*Member, error) {
	off := r.next
	if off >= r.size {
		return nil, io.EOF
	}
	if r.size-off < headerSize {
		return nil, &FormatError{off, "truncated member header", nil}
	}
	var h [headerSize]byte
	if err := exactio.ReadAt(r.r, h[:], off); err != nil {
		return nil, err
	}
	if h[58] != '`' || h[59] != '\n' {
		return nil, &FormatError{off + 58, "bad header terminator", strconv.Quote(string(h[58:60]))}
	}
	size, ok := parseDecimal(h[48:58], false)
	if !ok {
		return nil, &FormatError{off + 48, "bad member size", strconv.Quote(string(h[48:58]))}
	}
	m := &Member{HeaderOffset: off, Offset: off + headerSize, Size: size}
	if size > r.size-m.Offset {
		return nil, &FormatError{off + 48, "member size past end of archive:", size}
	}
	r.next = m.Offset + size + size&1
	if err := parseAttrs(m, &h); err != nil {
		return nil, err
	}
	return r.resolveName(m, &h)
}

// resolveName sets m.Name from the raw name field, or returns nil for
// tables (after loading the GNU long-name table).
func (r *Reader) resolveName(m *Member, h *[headerSize]byte) (*Member, error) {
	raw := string(h[:16])
	switch {
	case raw[0] == '/':
		return r.resolveSlashName(m, strings.TrimRight(raw, " "))
	case strings.HasPrefix(raw, "#1/"):
		return r.resolveBSDName(m, raw[3:])
	}
	if i := strings.IndexByte(raw, '/'); i >= 0 {
		m.Name = raw[:i]
		return m, nil
	}
	m.Name = strings.TrimRight(raw, " ")
	if isBSDSymdef(m.Name) {
		return nil, nil
	}
	return m, nil
}

// resolveSlashName handles GNU names that start with '/'.
func (r *Reader) resolveSlashName(m *Member, name string) (*Member, error) {
	switch name {
	case "/", "/SYM64/", "/<ECSYMBOLS>/", "/<XFGHASHMAP>/":
		return nil, nil
	case "//":
		if r.names != nil {
			return nil, &FormatError{m.HeaderOffset, "duplicate long-name table", nil}
		}
		if m.Size > maxNameTable {
			return nil, &FormatError{m.HeaderOffset, "long-name table too large:", m.Size}
		}
		b, err := readTable(r.r, m.Offset, m.Size)
		if err != nil {
			return nil, err
		}
		// Names are slices of the table, not copies: every member may
		// name the same long entry.
		r.names = strtab.NewTable(b, "\n\x00")
		return nil, nil
	}
	n, ok := parseDecimal([]byte(name[1:]), false)
	if !ok {
		return nil, &FormatError{m.HeaderOffset, "bad member name", strconv.Quote(name)}
	}
	if r.names == nil {
		return nil, &FormatError{m.HeaderOffset, "long name without a long-name table:", name}
	}
	if n >= int64(r.names.Len()) {
		return nil, &FormatError{m.HeaderOffset, "long name offset past the long-name table:", n}
	}
	s, _ := r.names.At(int(n))
	m.Name = strings.TrimSuffix(s, "/")
	return m, nil
}

// resolveBSDName reads a "#1/len" name stored in front of the data.
func (r *Reader) resolveBSDName(m *Member, lenField string) (*Member, error) {
	n, ok := parseDecimal([]byte(lenField), false)
	if !ok {
		return nil, &FormatError{m.HeaderOffset, "bad BSD name length", strconv.Quote(lenField)}
	}
	if n > m.Size || n > maxBSDName {
		return nil, &FormatError{m.HeaderOffset, "BSD name length too large:", n}
	}
	b := make([]byte, n)
	if err := exactio.ReadAt(r.r, b, m.Offset); err != nil {
		return nil, err
	}
	m.Name = string(bytes.TrimRight(b, "\x00"))
	m.Offset += n
	m.Size -= n
	if isBSDSymdef(m.Name) {
		return nil, nil
	}
	return m, nil
}

func isBSDSymdef(name string) bool {
	switch name {
	case "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED":
		return true
	}
	return false
}

// parseAttrs decodes the date, owner and mode fields; blank fields read as 0.
func parseAttrs(m *Member, h *[headerSize]byte) error {
	fields := []struct {
		lo, hi int
		octal  bool
		what   string
	}{{16, 28, false, "date"}, {28, 34, false, "uid"}, {34, 40, false, "gid"}, {40, 48, true, "mode"}}
	var v [4]int64
	for i, f := range fields {
		n, ok := parseNumber(h[f.lo:f.hi], f.octal, true)
		if !ok {
			return &FormatError{m.HeaderOffset + int64(f.lo), "bad member " + f.what, strconv.Quote(string(h[f.lo:f.hi]))}
		}
		v[i] = n
	}
	m.ModTime, m.UID, m.GID, m.Mode = v[0], int(v[1]), int(v[2]), uint32(v[3])
	return nil
}

func parseDecimal(b []byte, blankOK bool) (int64, bool) { return parseNumber(b, false, blankOK) }

// parseNumber parses digits followed by space padding.
func parseNumber(b []byte, octal, blankOK bool) (int64, bool) {
	s := strings.TrimRight(string(b), " ")
	if s == "" {
		return 0, blankOK
	}
	base := 10
	if octal {
		base = 8
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, base, 64)
	return n, err == nil
}

// readTable reads n bytes at off in bounded chunks, so that a lying size
// cannot force one large allocation before the data is seen.
func readTable(r io.ReaderAt, off, n int64) ([]byte, error) {
	var b []byte
	for n > 0 {
		c := min(n, readChunk)
		chunk := make([]byte, c)
		if err := exactio.ReadAt(r, chunk, off); err != nil {
			return nil, err
		}
		b = append(b, chunk...)
		off += c
		n -= c
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
