package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFromSections copies file sections in the shapes the format
// writers produce (nested SectionReaders, io.CopyN's LimitedReader, a
// partly read section, a section claiming more than the file holds) and
// compares against slices of the source bytes.
func TestReadFromSections(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 3<<20+123)
	rand.NewChaCha8([32]byte{1}).Read(data)
	srcPath := filepath.Join(dir, "src")
	if err := os.WriteFile(srcPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	size := int64(len(data))

	type tc struct {
		name string
		r    func() io.Reader
		want []byte
		left func(r io.Reader) bool // reader state after the copy
	}
	outer := func() *io.SectionReader { return io.NewSectionReader(src, 1000, size-2000) }
	tests := []tc{
		{"whole", func() io.Reader { return io.NewSectionReader(src, 0, size) }, data, nil},
		{"nested", func() io.Reader { return io.NewSectionReader(outer(), 4096, 1<<20) }, data[1000+4096 : 1000+4096+1<<20], nil},
		{"limited", func() io.Reader {
			return &io.LimitedReader{R: io.NewSectionReader(src, 7, size-7), N: 99999}
		}, data[7 : 7+99999], func(r io.Reader) bool {
			lr := r.(*io.LimitedReader)
			pos, _ := lr.R.(*io.SectionReader).Seek(0, io.SeekCurrent)
			return lr.N == 0 && pos == 99999
		}},
		{"partly-read", func() io.Reader {
			sr := io.NewSectionReader(src, 10, 5000)
			io.CopyN(io.Discard, sr, 300)
			return sr
		}, data[310:5010], nil},
		{"past-eof", func() io.Reader { return io.NewSectionReader(src, size-50, 1000) }, data[size-50:], nil},
		{"inner-clips", func() io.Reader {
			return io.NewSectionReader(io.NewSectionReader(src, 100, 200), 150, 1000)
		}, data[250:300], nil},
		{"not-a-file", func() io.Reader { return bytes.NewReader(data[:777]) }, data[:777], nil},
		{"empty", func() io.Reader { return io.NewSectionReader(src, 5, 0) }, nil, nil},
	}
	// A 5-byte head puts every copy off page alignment (buffered path); a
	// page-sized one aligns the sections at page offsets (kernel path).
	for _, head := range []string{"head:", strings.Repeat("h", os.Getpagesize())} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s-head%d", tt.name, len(head)), func(t *testing.T) {
				testCopy(t, filepath.Join(dir, fmt.Sprintf("%s-%d", tt.name, len(head))), head, tt.r(), tt.want, tt.left)
			})
		}
	}
}

func testCopy(t *testing.T, out, head string, r io.Reader, want []byte, left func(io.Reader) bool) {
	t.Helper()
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	f.WriteString(head) // the copy must land at the current offset
	n, err := io.Copy(f, r)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("copied %d, %v; want %d", n, err, len(want))
	}
	if left != nil && !left(r) {
		t.Errorf("reader not advanced past the copied bytes")
	}
	if m, _ := r.Read(make([]byte, 1)); m != 0 {
		t.Errorf("reader still yields data after the copy")
	}
	f.WriteString(":tail")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	full := append(append([]byte(head), want...), ":tail"...)
	if !bytes.Equal(got, full) {
		t.Fatalf("output differs from the source range (%d vs %d bytes)", len(got), len(full))
	}
}

// TestKernelCopy drives the kernel path directly (the filesystem under
// test may not be one where ReadFrom picks it): page-congruent and odd
// offsets, and a range running past the end of the source.
func TestKernelCopy(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 2<<20+99)
	rand.NewChaCha8([32]byte{3}).Read(data)
	src, err := os.Create(filepath.Join(dir, "src"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.Write(data)
	for _, tc := range []struct {
		name      string
		head, off int64
		n         int64
	}{{"aligned", 4096, 8192, 1 << 20}, {"odd", 5, 777, 1<<20 + 3}, {"past-eof", 0, int64(len(data)) - 10, 100}} {
		t.Run(tc.name, func(t *testing.T) {
			dst, err := os.Create(filepath.Join(dir, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			dst.Write(make([]byte, tc.head))
			n, err := kernelCopy(dst, src, tc.off, tc.n)
			want := data[tc.off:min(tc.off+tc.n, int64(len(data)))]
			if err != nil || n != int64(len(want)) {
				t.Fatalf("kernelCopy = %d, %v; want %d", n, err, len(want))
			}
			got, _ := os.ReadFile(dst.Name())
			if !bytes.Equal(got[tc.head:], want) || int64(len(got)) != tc.head+n {
				t.Fatal("copied bytes differ from the source range")
			}
		})
	}
}
