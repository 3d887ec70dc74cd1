package bundler

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// Device archives hold thousands of small members; reading each member's
// ELF headers, bundle sections and symbol table through the file costs
// a dozen system calls per member. A mapped input (see mapped) serves them
// all from memory. Otherwise small members are parsed, and the symbols of
// their device objects listed, from a read-ahead window, without a copy.
// The window is then reused: the jobs that write the outputs read member
// data from the file again, one read per member, so memory stays one window
// per parser whatever the archive's size. Larger members stay sections of
// the input file throughout.
const maxWindowMember = readAheadWindow / 4

// archiveState is what parsing a run of members remembers across them.
type archiveState struct {
	file    io.ReaderAt        // the input
	ahead   *readAhead         // the input again, for small members
	matches map[string]idMatch // by bundle ID
	buf     []byte             // addSymbols' scratch
}

// idMatch is a bundle ID parsed once, with the targets it serves.
type idMatch struct {
	co   targetid.EntryID
	fits []int
	err  error
}

func newArchiveState(file io.ReaderAt) *archiveState {
	return &archiveState{file: file, ahead: &readAhead{r: file}, matches: make(map[string]idMatch)}
}

// memberData returns a reader over member m of the input and a function to
// call once the member has been parsed, after which the reader reads from
// the file.
func (st *archiveState) memberData(m container.Piece) (io.ReaderAt, func()) {
	if mp, ok := st.file.(container.Mapped); ok && m.Offset >= 0 && m.Size >= 0 && m.Size <= int64(len(mp))-m.Offset {
		end := m.Offset + m.Size
		return &windowReader{b: mp[m.Offset:end:end], file: st.file, off: m.Offset, size: m.Size}, func() {}
	}
	if m.Size > maxWindowMember {
		return m.Data, func() {}
	}
	b := st.ahead.view(m.Offset, m.Size)
	if b == nil {
		return m.Data, func() {} // the ordinary path reports it
	}
	r := &windowReader{b: b, file: st.file, off: m.Offset, size: m.Size}
	return r, func() { r.b = nil }
}

// windowReader serves a member from a window of the input while it has
// one, and from the file after that.
type windowReader struct {
	b    []byte
	file io.ReaderAt
	off  int64 // file offset of the member
	size int64
}

// heldBytes returns the n bytes that r (sections of sections of a
// windowReader) reads, if they are in memory, else nil.
func heldBytes(r io.ReaderAt, n int64) []byte {
	var off int64
	for {
		sr, ok := r.(*io.SectionReader)
		if !ok {
			break
		}
		if n < 0 || off < 0 || off > sr.Size() || n > sr.Size()-off {
			return nil // not within this section
		}
		var o int64
		r, o, _ = sr.Outer()
		off += o
	}
	w, ok := r.(*windowReader)
	if !ok || w.b == nil || n < 0 || off < 0 || off > int64(len(w.b)) || n > int64(len(w.b))-off {
		return nil
	}
	return w.b[off : off+n]
}

func (w *windowReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("bundler: negative offset")
	}
	if off >= w.size {
		return 0, io.EOF
	}
	if rest := w.size - off; int64(len(p)) > rest {
		n, err := w.ReadAt(p[:rest], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	if w.b == nil {
		return w.file.ReadAt(p, w.off+off)
	}
	return copy(p, w.b[off:]), nil
}

// match parses a bundle ID and lists the targets (indexes into t) it is
// compatible with; archives repeat the same few IDs in every member.
func (st *archiveState) match(id string, t *targets, hipOpenMP bool) (targetid.EntryID, []int, error) {
	if m, ok := st.matches[id]; ok {
		return m.co, m.fits, m.err
	}
	var m idMatch
	if m.co, m.err = targetid.ParseEntryID(id); m.err == nil {
		for i, req := range t.ids {
			if targetid.Compatible(m.co, req, hipOpenMP) {
				m.fits = append(m.fits, i)
			}
		}
	}
	st.matches[id] = m
	return m.co, m.fits, m.err
}

// readAhead serves reads of a run of members from one window of the file,
// a system call per window rather than several per member.
type readAhead struct {
	r   io.ReaderAt
	buf []byte
	off int64 // file offset of buf[0]
}

const readAheadWindow = 1 << 20

// view returns the n bytes at off from the window, refilling it at off if
// need be, or nil if the file does not hold them. The bytes are valid until
// the next call.
func (c *readAhead) view(off, n int64) []byte {
	if n > readAheadWindow || n < 0 || off < 0 {
		return nil
	}
	if off < c.off || off-c.off+n > int64(len(c.buf)) {
		if c.buf == nil {
			c.buf = make([]byte, readAheadWindow)
		}
		got, err := c.r.ReadAt(c.buf[:readAheadWindow], off)
		if int64(got) < n || got < readAheadWindow && err != io.EOF {
			c.buf, c.off = c.buf[:0], 0
			return nil
		}
		c.buf, c.off = c.buf[:got], off
	}
	return c.buf[off-c.off : off-c.off+n : off-c.off+n]
}

// archiveJob is one output archive. Outputs are independent, so they are
// written concurrently.
type archiveJob struct {
	out     io.Writer
	path    string
	members []ar.WriterMember
	symErrs []error // addSymbols' error for each member
}

// writeArchiveJobs runs the jobs, GOMAXPROCS at a time, and returns the
// error of the first failing job in output order, as a sequential loop
// would.
func writeArchiveJobs(input string, jobs []archiveJob) error {
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = jobs[i].write(input)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// write writes the output archive in a goroutine of its own, which reads
// the mapped input: a fault there is its error.
func (j *archiveJob) write(input string) (err error) {
	defer faultGuard(&err, input)()
	for _, err := range j.symErrs {
		if err != nil {
			return fileError(input, err)
		}
	}
	// One large buffer: ar's own is 4 KiB, a write per small member.
	bw := bufio.NewWriterSize(j.out, 1<<20)
	if err := ar.WriteArchive(bw, j.members); err != nil {
		return fileError(j.path, err)
	}
	if err := bw.Flush(); err != nil {
		return fileError(j.path, err)
	}
	return nil
}
