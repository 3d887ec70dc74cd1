package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

func walkBytes(opt Options, in []byte) ([]*Image, error) {
	w := NewWalker(opt)
	defer w.Close()
	var ims []*Image
	err := w.Walk(bytes.NewReader(in), int64(len(in)), "in", func(im *Image) error {
		ims = append(ims, im)
		return nil
	})
	return ims, err
}

// nestedCCOB is the review's 265-byte input: a CCOB whose content is 16
// CCOBs of 256 MiB each.
func nestedCCOB(t *testing.T) []byte {
	inner := bytes.Repeat(hostile.CCOB(nil, 256<<20), 16)
	var out seekBuffer
	if _, err := ccob.Compress(&out, bytes.NewReader(inner), int64(len(inner)), ccob.DefaultWriterOptions()); err != nil {
		t.Fatal(err)
	}
	return out.buf
}

func TestNestedCompressionRefused(t *testing.T) {
	_, err := walkBytes(Options{}, nestedCCOB(t))
	if err == nil || !strings.Contains(err.Error(), "compressed data inside compressed data") {
		t.Fatalf("got %v, want nested compression refused", err)
	}
}

// Allowed, nesting is still bounded by the one budget of the input: the
// outer record and the inner ones draw from it together.
func TestNestedCompressionBudgeted(t *testing.T) {
	in := nestedCCOB(t)
	_, err := walkBytes(Options{AllowNestedCompression: true, MaxUncompressedSize: 1 << 30}, in)
	var ee *budget.ExceededError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want the budget exceeded", err)
	}
	// The outer record (4 KiB of headers) fits; the 16 inner ones declare
	// 4 GiB together and are refused before the first is decoded.
	if ee.Used > 1<<20 {
		t.Errorf("refused after inflating %d bytes; want before the inner records", ee.Used)
	}
}

// Concatenated records are charged together before any is decoded.
func TestConcatenatedRecordsRefusedBeforeDecoding(t *testing.T) {
	in := bytes.Repeat(hostile.CCOB(nil, 1<<30), 4)
	_, err := walkBytes(Options{MaxUncompressedSize: 3 << 30}, in)
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Used != 0 || ee.Want != 4<<30 {
		t.Fatalf("got %v, want the 4 GiB of 4 records refused with nothing inflated", err)
	}
}

// The depth limit counts every level, text bundles included: a chain of
// text bundles and CCOBs 200 levels deep stops at level 16.
func TestDepthCountsTextBundles(t *testing.T) {
	_, err := walkBytes(Options{AllowNestedCompression: true}, hostile.TextChain(100))
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than 16 levels") {
		t.Fatalf("got %v, want the depth limit", err)
	}
	// 7 text bundles and 7 CCOBs: within the limit; each bundle's host
	// entry is an image.
	ims, err := walkBytes(Options{AllowNestedCompression: true}, hostile.TextChain(7))
	if err != nil || len(ims) != 7 {
		t.Fatalf("a 14-level chain: %v, %d images; want 7 host entries", err, len(ims))
	}
}

// With Consume, each record's temporary file is closed once its images
// have been handed on, not when the walker closes.
func TestConsumeReleasesRecords(t *testing.T) {
	rec := hostile.CCOB(bytes.Repeat([]byte{1}, 64), 0)
	in := bytes.Repeat(rec, 5)
	w := NewWalker(Options{Consume: true})
	defer w.Close()
	if err := w.Walk(bytes.NewReader(in), int64(len(in)), "in", func(*Image) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if w.tmps.Len() != 0 {
		t.Fatalf("%d temporary files still open after the walk", w.tmps.Len())
	}
}

// Three images whose names collide as a, a and a.1 get three files, and a
// name that differs only in case gets a file of its own.
func TestNamesNeverCollide(t *testing.T) {
	var entries []offloadbin.Entry
	for i, arch := range []string{"a", "a", "a.1", "A", "a.1"} {
		data := []byte{byte('0' + i)}
		entries = append(entries, offloadbin.Entry{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
			Strings: []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
			Image:   bytes.NewReader(data), Size: 1})
	}
	var bin bytes.Buffer
	if _, err := offloadbin.WriteEntries(&bin, 2, entries, offloadbin.NoCompression); err != nil {
		t.Fatal(err)
	}
	ims, err := walkBytes(Options{}, bin.Bytes())
	if err != nil || len(ims) != 5 {
		t.Fatalf("%v, %d images", err, len(ims))
	}
	seen := map[string]bool{}
	for _, n := range Names("x", ims) {
		if seen[strings.ToLower(n)] {
			t.Errorf("name %s given twice (case-folded) in %v", n, Names("x", ims))
		}
		seen[strings.ToLower(n)] = true
	}
	dir := t.TempDir()
	paths, err := ToDir(dir, "x", ims)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		got[string(b)] = true
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 5 || len(got) != 5 {
		t.Errorf("ToDir wrote %d files holding %d distinct images; want 5 and 5", len(names), len(got))
	}
}

type seekBuffer struct {
	buf []byte
	pos int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if need := s.pos + len(p); need > len(s.buf) {
		s.buf = append(s.buf, make([]byte, need-len(s.buf))...)
	}
	copy(s.buf[s.pos:], p)
	s.pos += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		s.pos = int(off)
	case 1:
		s.pos += int(off)
	case 2:
		s.pos = len(s.buf) + int(off)
	}
	return int64(s.pos), nil
}

// A compressed OffloadBinary inside a CCOB is compressed data inside
// compressed data too: refused from its header by default, before it is
// inflated; allowed, it draws on the same budget as the CCOB around it.
func TestCompressedOffloadBinaryInCCOB(t *testing.T) {
	bomb := hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a")
	in := hostile.CCOB(bomb, 0)
	_, err := walkBytes(Options{}, in)
	if !errors.Is(err, ErrNested) || !strings.Contains(err.Error(), "--allow-nested-compression") {
		t.Fatalf("got %v, want ErrNested naming the flag", err)
	}
	_, err = walkBytes(Options{AllowNestedCompression: true, MaxUncompressedSize: 512 << 20}, in)
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Used != uint64(len(bomb)) || !strings.Contains(err.Error(), "raise the limit with --max-uncompressed-size") {
		t.Fatalf("allowed: got %v, want the binary refused by the budget the CCOB drew on, with the hint", err)
	}
}

// bigRun is an LZ4 block of a few hundred bytes that inflates to n bytes
// of 'z' (n > 20): a literal, then one long match at distance 1.
func bigRun(n int) []byte {
	b := []byte{0x1f, 'z', 1, 0}
	rest := n - 1 - 4 - 15
	for ; rest >= 255; rest -= 255 {
		b = append(b, 255)
	}
	return append(b, byte(rest), 0x00)
}

// nvFatbinOfRuns is a fat binary whose count entries are compressed
// cubins of n bytes each, made by hand: each the smallest entry header
// and a bigRun payload.
func nvFatbinOfRuns(count, n int) []byte {
	le := binary.LittleEndian
	var body []byte
	for i := 0; i < count; i++ {
		p := bigRun(n)
		h := make([]byte, 64)
		le.PutUint16(h, 2) // ELF
		le.PutUint32(h[4:], 64)
		le.PutUint64(h[8:], uint64(len(p)+7)&^7)
		le.PutUint32(h[16:], uint32(len(p)))
		le.PutUint32(h[28:], 80)
		le.PutUint64(h[40:], 0x2011)
		le.PutUint64(h[56:], uint64(n))
		body = append(append(body, h...), p...)
		body = append(body, make([]byte, (len(p)+7)&^7-len(p))...)
	}
	out := make([]byte, 16, 16+len(body))
	le.PutUint32(out, nvfatbin.Magic)
	le.PutUint16(out[4:], 1)
	le.PutUint16(out[6:], 16)
	le.PutUint64(out[8:], uint64(len(body)))
	return append(out, body...)
}

// The compressed entries of a fat binary are charged together before any
// is inflated, and each inflates to disk: 4 entries of 64 MiB declared by
// 1 MiB of input are refused under a budget of 200 MiB with nothing
// inflated, and read under one of 256 MiB.
func TestNVFatbinEntriesBudgeted(t *testing.T) {
	in := nvFatbinOfRuns(4, 64<<20)
	_, err := walkBytes(Options{MaxUncompressedSize: 200 << 20}, in)
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Used != 0 || ee.Want != 4*64<<20 {
		t.Fatalf("got %v, want the 256 MiB of 4 entries refused with nothing inflated", err)
	}
	ims, err := walkBytes(Options{MaxUncompressedSize: 256 << 20, TempDir: t.TempDir()}, in)
	if err != nil || len(ims) != 4 {
		t.Fatalf("%d images, %v", len(ims), err)
	}
	for _, im := range ims {
		r, _, _ := im.Open().Outer()
		if s, ok := r.(*io.SectionReader); ok {
			r, _, _ = s.Outer()
		}
		if _, isFile := r.(*os.File); !isFile || im.Size != 64<<20 {
			t.Errorf("%v: %d bytes, in %T; want 64 MiB in a temporary file", im.Where, im.Size, im.data)
		}
	}
}
