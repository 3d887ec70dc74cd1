package inspect

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// sink holds an NVIDIA fat binary entry inflated to look inside it: in
// memory when it declares at most Options.KeepCompressed bytes, else in an
// unlinked temporary file, so that memory stays flat. The file goes when
// the walker's temporary files from before it are closed
// (Temps.CloseFrom).
type sink struct {
	mem  *prefixWriter
	file *os.File
	n    int64
}

// sink returns where to inflate a payload that declares size bytes.
func (w *walker) sink(size uint64) (*sink, error) {
	if size <= uint64(w.opt.KeepCompressed) {
		return &sink{mem: &prefixWriter{max: w.opt.KeepCompressed}}, nil
	}
	f, err := w.spill()
	if err != nil {
		return nil, err
	}
	return &sink{file: f}, nil
}

func (s *sink) Write(b []byte) (int, error) {
	if s.file == nil {
		return s.mem.Write(b)
	}
	n, err := s.file.Write(b)
	s.n += int64(n)
	return n, err
}

// contents returns what the sink kept: all that was written, but for a
// payload larger than it declared (the decoders refuse that), its prefix.
func (s *sink) contents() (io.ReaderAt, int64) {
	if s.file == nil {
		return bytes.NewReader(s.mem.buf), int64(len(s.mem.buf))
	}
	return s.file, s.n
}

// payload describes what the CCOB in v (header h) inflates to, from kept,
// the prefix of it that decompressing kept in memory. It walks the prefix
// first; only if that walk reads past it (a bundle larger than the prefix,
// such as a HIP fat binary of over 16 MiB) is the record decoded again,
// into an unlinked temporary file, and walked whole. So a record that
// declares 4 GiB of zeros costs one pass and no disk, and a valid large
// bundle is read whole rather than called damaged. The first walk runs on
// a fork of the budget, so that the second charges nothing twice.
func (w *walker) payload(v view, h ccob.Header, kept []byte, space string, depth int) *Node {
	pr := &ccob.PrefixReader{B: kept}
	saved, ccobs, mark := w.budget, w.ccobs, len(w.seenOrder)
	w.budget = saved.Fork()
	c := w.node(view{r: pr, size: int64(h.UncompressedSize), space: space}, depth+1)
	if !pr.Missed {
		return c
	}
	w.budget, w.ccobs = saved, ccobs
	w.forgetSince(mark)
	f, err := w.spill()
	if err == nil { // charged and hashed by the first pass
		_, _, err = ccob.Decompress(f, v.r, v.size, ccob.ReaderOptions{MaxUncompressedSize: w.budget.Limit(), SkipHashCheck: true})
	}
	if err != nil {
		return &Node{Format: "data", Offset: 0, Size: int64(h.UncompressedSize), Space: space,
			Error: fmt.Sprintf("decoding the payload again to read past its first %d bytes: %v", len(kept), err)}
	}
	return w.node(view{r: f, size: int64(h.UncompressedSize), space: space}, depth+1)
}
