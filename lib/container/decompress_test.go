package container

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// compressed returns a version 3 zstd CCOB of payload.
func compressed(t *testing.T, payload string) []byte {
	f, err := os.CreateTemp(t.TempDir(), "ccob")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ccob.Compress(f, strings.NewReader(payload), int64(len(payload)), ccob.WriterOptions{Method: ccob.MethodZstd}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decompress(t *testing.T, input []byte, deferCheck bool) ([]*Record, error, string) {
	dir := t.TempDir()
	opt := DecompressOptions{TempDir: dir, CCOB: ccob.ReaderOptions{Budget: budget.New(0)}, Defer: deferCheck}
	recs, err := Decompress(&Source{R: bytes.NewReader(input), Size: int64(len(input))}, opt)
	return recs, err, dir
}

// TestDecompressSequence decodes records stored back to back with zero
// padding between, into files that leave no name behind.
func TestDecompressSequence(t *testing.T) {
	var input []byte
	input = append(input, compressed(t, "first bundle")...)
	input = append(input, 0, 0, 0, 0)
	input = append(input, compressed(t, "second")...)
	for _, deferCheck := range []bool{false, true} {
		recs, err, dir := decompress(t, input, deferCheck)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(io.NewSectionReader(r.R, 0, r.Size))
			got = append(got, string(b))
			r.Close()
		}
		if strings.Join(got, "|") != "first bundle|second" {
			t.Errorf("defer %v: decoded %q", deferCheck, got)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("defer %v: %d names left in %s", deferCheck, len(left), filepath.Base(dir))
		}
	}
}

// TestDecompressHashMismatch finds a corrupt payload at once, or when the
// deferred check is waited for.
func TestDecompressHashMismatch(t *testing.T) {
	input := compressed(t, "payload")
	copy(input[24:32], make([]byte, 8)) // the stored hash of a v3 header
	_, err, _ := decompress(t, input, false)
	var re *RecordError
	if !errors.As(err, &re) || !errors.Is(err, ccob.ErrHashMismatch) {
		t.Fatalf("checked at once: %v, want a RecordError for a hash mismatch", err)
	}
	recs, err, _ := decompress(t, input, true)
	if err != nil {
		t.Fatalf("deferred: %v", err)
	}
	defer recs[0].Close()
	if err := recs[0].Check(); !errors.Is(err, ccob.ErrHashMismatch) {
		t.Fatalf("deferred check: %v, want a hash mismatch", err)
	}
}

func TestDecompressTrailingData(t *testing.T) {
	input := append(compressed(t, "payload"), 0, 0, 'x')
	_, err, dir := decompress(t, input, false)
	var te *TrailingError
	if !errors.As(err, &te) || te.Offset != int64(len(input)-1) {
		t.Fatalf("Decompress = %v, want data after the record at %d", err, len(input)-1)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d names left after the error", len(left))
	}
}

// TestDecompressBudget refuses records whose declared sizes together
// exceed the budget before decoding any.
func TestDecompressBudget(t *testing.T) {
	input := append(compressed(t, "0123456789"), compressed(t, "0123456789")...)
	opt := DecompressOptions{TempDir: t.TempDir(), CCOB: ccob.ReaderOptions{Budget: budget.New(15)}}
	decoded := 0
	opt.Decoded = func(*Record) { decoded++ }
	_, err := Decompress(&Source{R: bytes.NewReader(input), Size: int64(len(input))}, opt)
	var re *RecordError
	if !errors.As(err, &re) || re.Offset != 0 || decoded != 0 {
		t.Fatalf("Decompress = %v after %d records, want a RecordError before any", err, decoded)
	}
}
