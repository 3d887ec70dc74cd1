package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Text bundles hold, per entry:
//
//	"\n" C " __CLANG_OFFLOAD_BUNDLE____START__ " ID "\n"
//	payload bytes, verbatim
//	"\n" C " __CLANG_OFFLOAD_BUNDLE____END__ " ID "\n"
//
// where C is the line-comment string of the file type (CommentFor).
const (
	startTag = "__START__ "
	endTag   = "__END__ "
)

// CommentFor returns the line-comment string LLVM uses for a text bundle of
// the given -type: "//" for i, ii, cui and hipi, ";" for ll, "#" for s and
// d. ok is false for other types (binary or object formats).
func CommentFor(fileType string) (comment string, ok bool) {
	switch fileType {
	case "i", "ii", "cui", "hipi":
		return "//", true
	case "ll":
		return ";", true
	case "s", "d":
		return "#", true
	}
	return "", false
}

func startMarker(comment string) string { return "\n" + comment + " " + Magic + startTag }
func endMarker(comment string) string   { return "\n" + comment + " " + Magic + endTag }

func checkComment(comment string) error {
	if comment == "" || strings.IndexByte(comment, '\n') >= 0 {
		return fmt.Errorf("bundle: bad comment string %q", comment)
	}
	return nil
}

// WriteText writes a text bundle with one entry per ID, copying each
// payload from srcs[i] as it is read. The output is byte-identical to
// clang-offload-bundler-22. A payload holding a marker line prefix
// ("\n" C " __CLANG_OFFLOAD_BUNDLE__") is rejected with ErrMarkerInPayload,
// since no reader could find where it ends; the error comes after the bytes
// before it were written.
func WriteText(w io.Writer, comment string, ids []string, srcs []io.Reader) error {
	if err := checkComment(comment); err != nil {
		return err
	}
	if len(srcs) != len(ids) {
		return fmt.Errorf("bundle: %d ids but %d sources", len(ids), len(srcs))
	}
	if err := checkIDs(ids, true); err != nil {
		return err
	}
	start, end := startMarker(comment), endMarker(comment)
	for i, id := range ids {
		if _, err := io.WriteString(w, start+id+"\n"); err != nil {
			return err
		}
		g := &markerGuard{w: w, pattern: []byte("\n" + comment + " " + Magic)}
		if _, err := io.Copy(g, srcs[i]); err != nil {
			return fmt.Errorf("entry %d (%s): %w", i, id, err)
		}
		if _, err := io.WriteString(w, end+id+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// markerGuard passes writes through to w and fails once the bytes written
// so far contain pattern, which may straddle writes.
type markerGuard struct {
	w       io.Writer
	pattern []byte
	tail    []byte // last len(pattern)-1 bytes seen
	n       int64
}

func (g *markerGuard) Write(p []byte) (int, error) {
	if at := g.find(p); at >= 0 {
		return 0, fmt.Errorf("%w at payload offset %d", ErrMarkerInPayload, at)
	}
	n, err := g.w.Write(p)
	g.n += int64(n)
	keep := len(g.pattern) - 1
	g.tail = append(g.tail, p[:n]...)
	if len(g.tail) > keep {
		g.tail = append(g.tail[:0], g.tail[len(g.tail)-keep:]...)
	}
	return n, err
}

// find returns the payload offset of the first match that ends in p, or -1.
func (g *markerGuard) find(p []byte) int64 {
	// A match straddling the boundary lies within tail + the head of p.
	head := p[:min(len(p), len(g.pattern)-1)]
	joined := append(append(make([]byte, 0, len(g.tail)+len(head)), g.tail...), head...)
	if i := bytes.Index(joined, g.pattern); i >= 0 {
		return g.n - int64(len(g.tail)) + int64(i)
	}
	if i := bytes.Index(p, g.pattern); i >= 0 {
		return g.n + int64(i)
	}
	return -1
}

// TextEntry is one entry of a text bundle read into memory.
type TextEntry struct {
	ID   string
	Data []byte
}

// ReadText reads a whole text bundle from r and returns its entries in file
// order, holding the payloads in memory (text bundles are source-sized).
// TextReader streams instead.
func ReadText(r io.Reader, comment string) ([]TextEntry, error) {
	tr := NewTextReader(r, comment)
	var out []TextEntry
	for {
		id, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out = append(out, TextEntry{ID: id, Data: data})
	}
}

// textBufSize holds the longest ID line plus a marker, with room to spare.
const textBufSize = 2 * MaxIDLength

// TextReader reads a text bundle as a stream, like archive/tar's Reader:
// Next advances to the next entry and returns its ID, and Read reads that
// entry's payload. Memory use is bounded by a fixed buffer.
//
// Parsing follows LLVM: bytes before a start marker are skipped; an entry's
// ID runs to the end of the start-marker line; its payload runs up to the
// next end marker. Where LLVM would crash or silently stop, TextReader
// reports an error: a missing end marker or ID line terminator
// (ErrTruncated), an empty ID or an end marker naming a different ID
// (ErrBadEntry), an ID seen before (ErrDuplicateID). Errors are sticky.
type TextReader struct {
	r          io.Reader
	start, end []byte
	buf        []byte
	i, j       int   // unread bytes are buf[i:j]
	base       int64 // input offset of buf[0]
	eof        bool  // r returned io.EOF
	err        error // sticky error
	entries    int
	id         string
	inEntry    bool // Next returned an entry whose end line is unread
	avail      int  // bytes at buf[i:] known to be payload
	endFound   bool // the end marker sits at buf[i+avail]
	seen       map[string]struct{}
}

// NewTextReader returns a reader for the text bundle in r, whose marker
// lines start with comment (see CommentFor).
func NewTextReader(r io.Reader, comment string) *TextReader {
	t := &TextReader{r: r, seen: map[string]struct{}{}}
	if err := checkComment(comment); err != nil {
		t.err = err
	}
	t.start, t.end = []byte(startMarker(comment)), []byte(endMarker(comment))
	return t
}

// Next skips the rest of the current entry and returns the ID of the next
// one. It returns io.EOF after the last entry, and an error wrapping
// ErrNotBundle if the input holds no entry at all.
func (t *TextReader) Next() (string, error) {
	if t.err != nil {
		return "", t.err
	}
	id, err := t.next()
	if err != nil && err != io.EOF {
		t.err = err
	}
	return id, err
}

func (t *TextReader) next() (string, error) {
	if t.inEntry {
		if _, err := io.Copy(io.Discard, t); err != nil {
			return "", err
		}
		if err := t.readEndLine(); err != nil {
			return "", err
		}
	}
	found, err := t.skipTo(t.start)
	if err != nil {
		return "", err
	}
	if !found {
		if t.entries == 0 {
			return "", formatErr(0, ErrNotBundle, "no start marker %q", strings.TrimPrefix(string(t.start), "\n"))
		}
		return "", io.EOF
	}
	lineOff := t.pos()
	id, complete, err := t.readLine()
	switch {
	case err != nil:
		return "", err
	case !complete:
		return "", formatErr(lineOff, ErrTruncated, "entry %d: start marker line not terminated", t.entries)
	case id == "":
		return "", formatErr(lineOff, ErrBadEntry, "entry %d: empty id", t.entries)
	}
	if _, dup := t.seen[id]; dup {
		return "", formatErr(lineOff, ErrDuplicateID, "entry %d: duplicate id %q", t.entries, id)
	}
	t.seen[id] = struct{}{}
	t.entries++
	t.id, t.inEntry, t.avail, t.endFound = id, true, 0, false
	return id, nil
}

// Read reads the current entry's payload; it returns io.EOF at its end.
func (t *TextReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if !t.inEntry {
		return 0, io.EOF
	}
	for t.avail == 0 {
		if t.endFound {
			return 0, io.EOF
		}
		if err := t.scanPayload(); err != nil {
			t.err = err
			return 0, err
		}
	}
	n := copy(p, t.buf[t.i:t.i+min(t.avail, len(p))])
	t.i += n
	t.avail -= n
	return n, nil
}

// scanPayload extends avail: up to the end marker if it is buffered, else
// up to the bytes that could still begin one.
func (t *TextReader) scanPayload() error {
	for {
		if k := bytes.Index(t.buf[t.i:t.j], t.end); k >= 0 {
			t.avail, t.endFound = k, true
			return nil
		}
		if safe := t.j - t.i - (len(t.end) - 1); safe > 0 {
			t.avail = safe
			return nil
		}
		if t.eof {
			return formatErr(t.pos(), ErrTruncated, "entry %d (%s): end marker missing", t.entries-1, t.id)
		}
		if err := t.fill(); err != nil {
			return err
		}
	}
}

// readEndLine consumes the end marker line that follows a fully read
// payload and checks that it names the entry's ID. LLVM accepts an end line
// cut short by the end of the input, and so does this.
func (t *TextReader) readEndLine() error {
	t.i += len(t.end) // Read stopped at the buffered marker
	off := t.pos()
	id, _, err := t.readLine()
	if err != nil {
		return err
	}
	if id != t.id {
		return formatErr(off, ErrBadEntry, "entry %d: end marker names %q, want %q", t.entries-1, id, t.id)
	}
	t.inEntry = false
	return nil
}

// skipTo discards input up to and including marker; found is false if the
// input ends first.
func (t *TextReader) skipTo(marker []byte) (found bool, err error) {
	for {
		if k := bytes.Index(t.buf[t.i:t.j], marker); k >= 0 {
			t.i += k + len(marker)
			return true, nil
		}
		if t.eof {
			t.i = t.j
			return false, nil
		}
		t.i = max(t.i, t.j-(len(marker)-1))
		if err := t.fill(); err != nil {
			return false, err
		}
	}
}

// readLine consumes bytes up to and including the next '\n' and returns
// them without it; complete is false if the input ended first.
func (t *TextReader) readLine() (line string, complete bool, err error) {
	for {
		if k := bytes.IndexByte(t.buf[t.i:t.j], '\n'); k >= 0 {
			line = string(t.buf[t.i : t.i+k])
			t.i += k + 1
			return line, true, t.checkIDLen(line)
		}
		if t.j-t.i > MaxIDLength {
			return "", false, formatErr(t.pos(), ErrBadEntry, "id line longer than %d bytes", MaxIDLength)
		}
		if t.eof {
			line = string(t.buf[t.i:t.j])
			t.i = t.j
			return line, false, nil
		}
		if err := t.fill(); err != nil {
			return "", false, err
		}
	}
}

func (t *TextReader) checkIDLen(id string) error {
	if len(id) > MaxIDLength {
		return formatErr(t.pos(), ErrBadEntry, "id line longer than %d bytes", MaxIDLength)
	}
	return nil
}

func (t *TextReader) pos() int64 { return t.base + int64(t.i) }

// fill moves unread bytes to the front of buf and reads more, until buf is
// full, r reports EOF or r returns at least one byte.
func (t *TextReader) fill() error {
	if t.buf == nil {
		t.buf = make([]byte, textBufSize)
	}
	if t.i > 0 {
		copy(t.buf, t.buf[t.i:t.j])
		t.base += int64(t.i)
		t.j -= t.i
		t.i = 0
	}
	for t.j < len(t.buf) {
		n, err := t.r.Read(t.buf[t.j:])
		t.j += n
		if errors.Is(err, io.EOF) {
			t.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return nil
}
