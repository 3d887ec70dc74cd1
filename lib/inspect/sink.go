package inspect

import (
	"bytes"
	"io"
	"os"
)

// sink holds a payload inflated to look inside it: in memory when it
// declares at most Options.KeepCompressed bytes, else in an unlinked
// temporary file, so that a valid compressed bundle of any size within
// the budget is read whole (a prefix would cut its entries off) while
// memory stays flat. The file goes when the walker's temporary files
// from before it are closed (closeTempsFrom).
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
