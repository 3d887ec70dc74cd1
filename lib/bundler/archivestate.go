package bundler

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// Device archives hold thousands of small members; reading each member's
// ELF headers, bundle sections and symbol table through the file costs
// a dozen system calls per member. Small members are therefore read whole,
// up to maxHeld bytes per job; larger members (and any past the budget)
// stay sections of the input file, which the kernel copies.
const (
	maxHeldMember = 4 << 20
	maxHeld       = 32 << 20
)

// archiveState is what unbundling one archive remembers across members.
type archiveState struct {
	file    io.ReaderAt // the input
	ahead   *readAhead  // the input again, for member headers and small members
	held    int64
	matches map[string]idMatch // by bundle ID
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

// memberData returns a reader over member m of the input.
func (st *archiveState) memberData(m *ar.Member) io.ReaderAt {
	if m.Size > maxHeldMember || st.held+m.Size > maxHeld {
		return m.Open(st.file)
	}
	buf := make([]byte, m.Size)
	if _, err := m.Open(st.ahead).ReadAt(buf, 0); err != nil && err != io.EOF {
		return m.Open(st.file) // the ordinary path reports it
	}
	st.held += m.Size
	return bytes.NewReader(buf)
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

// readAhead serves the small, mostly sequential reads of an archive walk
// from one window of the file, a system call per window rather than per
// header. Large reads go straight to the file.
type readAhead struct {
	mu  sync.Mutex
	r   io.ReaderAt
	buf []byte
	off int64 // file offset of buf[0]
	eof bool  // the window ends at the end of the file
}

const readAheadWindow = 1 << 20

func (c *readAhead) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > readAheadWindow/4 || off < 0 {
		return c.r.ReadAt(p, off)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.off + int64(len(c.buf))
	if off < c.off || off+int64(len(p)) > end && !(c.eof && off <= end) {
		if c.buf == nil {
			c.buf = make([]byte, readAheadWindow)
		}
		n, err := c.r.ReadAt(c.buf[:readAheadWindow], off)
		if n < readAheadWindow && err != io.EOF {
			c.buf, c.off = c.buf[:0], 0
			return c.r.ReadAt(p, off)
		}
		c.buf, c.off, c.eof = c.buf[:n], off, n < readAheadWindow
	}
	n := copy(p, c.buf[off-c.off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// archiveJob is one output archive. Outputs are independent, so their
// members' symbol tables are read and the archives written concurrently.
type archiveJob struct {
	out     io.Writer
	path    string
	members []ar.WriterMember
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

func (j *archiveJob) write(input string) error {
	for k := range j.members {
		if err := addSymbols(&j.members[k]); err != nil {
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
