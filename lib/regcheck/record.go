// Package regcheck checks what a program registers with the offload
// runtimes (HIP, CUDA, libomptarget) against the device images it
// registers: the record that offload_registration_test's recording
// stand-in of those runtimes writes (rules/private/registration/recorder.c).
package regcheck

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/budget"
)

// Magic is the record's first line. Version 2 ends with an end line
// (see Parse); version 1 had none.
const Magic = "offload-registration-record 2"

// maxLine bounds one line of the record: a kernel's mangled name.
const maxLine = 64 << 10

// maxUnits bounds the registration units of one record.
const maxUnits = 1 << 16

// Unit is what one registration call (__cudaRegisterFatBinary,
// __hipRegisterFatBinary, __tgt_register_lib) registered: its device code
// and the kernels and variables registered under its handle.
type Unit struct {
	Kind      string // "cuda", "hip", "openmp"
	Handle    int
	Blobs     []Blob // one fat binary (CUDA, HIP), one per image (OpenMP)
	Functions []string
	Vars      []string
}

// Blob locates registered device code inside the record.
type Blob struct {
	Magic        uint32 // the wrapper's magic (0 for OpenMP images)
	Offset, Size int64
}

// Record is a parsed record; r is the record, which blobs point into.
type Record struct {
	Units []*Unit
	r     io.ReaderAt
	// budget bounds what the record's images inflate to, together; tempDir
	// is where large ones are inflated (Check sets both from Options).
	budget  *budget.Budget
	tempDir string
}

// FormatError says where a record is malformed.
type FormatError struct {
	Line int
	Msg  string
}

func (e *FormatError) Error() string { return fmt.Sprintf("record line %d: %s", e.Line, e.Msg) }

// counter tracks the offset of a bufio.Reader over a file.
type counter struct {
	br  *bufio.Reader
	off int64
}

func (c *counter) line() (string, error) {
	var b []byte
	for {
		frag, err := c.br.ReadSlice('\n')
		c.off += int64(len(frag))
		b = append(b, frag...)
		if len(b) > maxLine {
			return "", fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return string(b), err
		}
		return strings.TrimSuffix(string(b), "\n"), nil
	}
}

// Parse reads a record of size bytes from r. Blobs are not read, only
// skipped: their sizes are checked against the record's size.
//
// The record must end with "end <count>", count being its lines between
// the first and that one, and nothing may follow: the recorder writes it
// last, so a record without it is one whose program stopped before it
// finished (a crash, a full disk), cut perhaps between two units, where
// what is there would look whole.
func Parse(r io.ReaderAt, size int64) (*Record, error) {
	c := &counter{br: bufio.NewReader(io.NewSectionReader(r, 0, size))}
	rec := &Record{r: r}
	units := map[int]*Unit{}
	entries, ended := 0, false
	n := 1
	for ; ; n++ {
		line, err := c.line()
		if err == io.EOF && line == "" {
			break
		}
		if err != nil && err != io.EOF {
			return nil, &FormatError{n, err.Error()}
		}
		if ended {
			return nil, &FormatError{n, "data after the end line"}
		}
		if n == 1 {
			if line == magicV1 {
				return nil, &FormatError{n, "a record of version 1, without an end line: written by an older recorder; record it again"}
			}
			if line != Magic {
				return nil, &FormatError{n, fmt.Sprintf("not a registration record (want %q)", Magic)}
			}
			continue
		}
		if count, ok := strings.CutPrefix(line, "end "); ok {
			if err == io.EOF {
				return nil, &FormatError{n, "the end line is cut short"}
			}
			if count != strconv.Itoa(entries) {
				return nil, &FormatError{n, fmt.Sprintf("the end line counts %q lines, the record has %d", count, entries)}
			}
			ended = true
			continue
		}
		entries++
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			return nil, &FormatError{n, fmt.Sprintf("want <what> <handle> ..., got %q", line)}
		}
		h, err := strconv.Atoi(f[1])
		if err != nil || h < 0 || h >= maxUnits {
			return nil, &FormatError{n, fmt.Sprintf("bad handle %q (a call with a handle the recorder did not return?)", f[1])}
		}
		switch f[0] {
		case "fatbin":
			if err := rec.blob(c, units, f[2], h, size); err != nil {
				return nil, &FormatError{n, err.Error()}
			}
		case "function", "var":
			u := units[h]
			if u == nil {
				return nil, &FormatError{n, fmt.Sprintf("%s %q registered under handle %d before its fat binary", f[0], f[2], h)}
			}
			if f[0] == "function" {
				u.Functions = append(u.Functions, f[2])
			} else {
				u.Vars = append(u.Vars, f[2])
			}
		default:
			return nil, &FormatError{n, fmt.Sprintf("unknown line %q", f[0])}
		}
	}
	if !ended {
		return nil, &FormatError{n, "the record has no end line: the program that wrote it stopped before it finished (a crash, a full disk?)"}
	}
	return rec, nil
}

// magicV1 is the first line of records before the end line.
const magicV1 = "offload-registration-record 1"

// blob reads "<kind> <magic> <size>" after "fatbin <handle>" and skips the
// bytes that follow.
func (rec *Record) blob(c *counter, units map[int]*Unit, rest string, h int, size int64) error {
	f := strings.Fields(rest)
	if len(f) != 3 {
		return fmt.Errorf("want fatbin <handle> <kind> <magic> <size>")
	}
	magic, err1 := strconv.ParseUint(f[1], 0, 32)
	n, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || n < 0 || n > size-c.off-1 {
		return fmt.Errorf("bad magic or size %q %q (the record has %d bytes)", f[1], f[2], size)
	}
	u := units[h]
	if u == nil {
		u = &Unit{Kind: f[0], Handle: h}
		units[h] = u
		rec.Units = append(rec.Units, u)
	} else if u.Kind != f[0] {
		return fmt.Errorf("handle %d is %q and %q", h, u.Kind, f[0])
	}
	u.Blobs = append(u.Blobs, Blob{Magic: uint32(magic), Offset: c.off, Size: n})
	if _, err := c.br.Discard(int(n)); err != nil {
		return err
	}
	c.off += n
	if b, err := c.br.ReadByte(); err != nil || b != '\n' {
		return fmt.Errorf("fat binary of %d bytes not followed by a newline", n)
	}
	c.off++
	return nil
}

// inflation is the record's budget: budget.DefaultLimit until Check sets
// one.
func (rec *Record) inflation() *budget.Budget {
	if rec.budget == nil {
		rec.budget = budget.New(0)
	}
	return rec.budget
}

// Open returns a reader over a blob's bytes.
func (rec *Record) Open(b Blob) *io.SectionReader {
	return io.NewSectionReader(rec.r, b.Offset, b.Size)
}
