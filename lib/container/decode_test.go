package container

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

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

// decode decodes input's records as an Input does, each whole into an
// unlinked file, with the hash comparison deferred or not.
func decode(t *testing.T, input []byte, deferHash bool) (*Input, error) {
	in, err := OpenInput(inputFile(t, input), InputOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return in, in.Decode(DecodeOptions{TempDir: t.TempDir(), DeferHash: deferHash}, nil)
}

// openFiles counts this process's open file descriptors; call it with
// the garbage collector off, so that no finalizer closes files meanwhile.
func openFiles(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestDecodeSequence decodes records stored back to back with zero
// padding between, each into a file of its own that Close closes.
func TestDecodeSequence(t *testing.T) {
	var input []byte
	input = append(input, compressed(t, "first bundle")...)
	input = append(input, 0, 0, 0, 0)
	input = append(input, compressed(t, "second")...)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, deferHash := range []bool{false, true} {
		before := openFiles(t)
		in, err := decode(t, input, deferHash)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Check(); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range in.Parts {
			got = append(got, partText(t, p))
		}
		if strings.Join(got, "|") != "first bundle|second" {
			t.Errorf("defer %v: decoded %q", deferHash, got)
		}
		in.Close()
		if after := openFiles(t); after > before {
			t.Errorf("defer %v: %d files open after Close, %d before", deferHash, after, before)
		}
	}
}

// A deferred comparison's goroutine ends with its record: closing an
// input whose records were never checked leaves none running.
func TestDeferredCheckEndsWithRecord(t *testing.T) {
	rec := compressed(t, strings.Repeat("payload ", 1<<16))
	before := runtime.NumGoroutine()
	in, err := decode(t, append(bytes.Clone(rec), rec...), true)
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	after := runtime.NumGoroutine()
	for wait := 0; after > before && wait < 100; wait++ { // ended ones may still be leaving
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		t.Fatalf("%d goroutines after Close, %d before", after, before)
	}
}

// TestDecodeHashMismatch finds a corrupt payload at once, or when the
// deferred comparison is waited for (Check); --skip-hash-check's records
// are not compared at all.
func TestDecodeHashMismatch(t *testing.T) {
	input := badHash(t, compressed(t, "payload"))
	_, err := decode(t, input, false)
	var re *RecordError
	if !errors.As(err, &re) || !errors.Is(err, ccob.ErrHashMismatch) {
		t.Fatalf("compared at once: %v, want a RecordError for a hash mismatch", err)
	}
	in, err := decode(t, input, true)
	if err != nil {
		t.Fatalf("deferred: %v", err)
	}
	defer in.Close()
	if err := in.Check(); !errors.Is(err, ccob.ErrHashMismatch) {
		t.Fatalf("deferred check: %v, want a hash mismatch", err)
	}
	skip, err := OpenInput(inputFile(t, input), InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer skip.Close()
	if err := skip.Decode(DecodeOptions{SkipHash: true, DeferHash: true}, nil); err != nil || skip.Check() != nil {
		t.Fatalf("skipping the hash: %v, %v", err, skip.Check())
	}
}

// Data after the records is a *TrailingError where it starts; a record
// that does not decode is a *RecordError. Either way the records decoded
// before, and the file of the one that failed, are closed, their
// comparisons done.
func TestDecodeErrorClosesRecords(t *testing.T) {
	rec := compressed(t, "payload")
	short := bytes.Clone(rec)
	binary.LittleEndian.PutUint64(short[8:], 40) // a v3 header's total size: the payload is cut short
	trailing := append(append(bytes.Clone(rec), rec...), 0, 0, 'x')
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, deferHash := range []bool{false, true} {
		before := openFiles(t)
		in, err := decode(t, trailing, deferHash)
		var te *TrailingError
		if !errors.As(err, &te) || te.Offset != int64(len(trailing)-1) {
			t.Fatalf("Decode = %v, want data after the records at %d", err, len(trailing)-1)
		}
		in.Close()
		in, err = decode(t, append(bytes.Clone(rec), short...), deferHash)
		var re *RecordError
		if !errors.As(err, &re) || re.Offset != int64(len(rec)) {
			t.Fatalf("Decode = %v, want the record at %d failing", err, len(rec))
		}
		in.Close()
		if after := openFiles(t); after > before {
			t.Fatalf("defer %v: %d files open after the errors, %d before", deferHash, after, before)
		}
	}
}

// TestDecodeBudget refuses records whose declared sizes together exceed
// the budget before decoding any (a *DeclaredError).
func TestDecodeBudget(t *testing.T) {
	input := append(compressed(t, "0123456789"), compressed(t, "0123456789")...)
	in, err := OpenInput(inputFile(t, input), InputOptions{Limit: 15})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	decoded := 0
	err = in.Decode(DecodeOptions{Decoded: func(*CCOBRecord) { decoded++ }}, nil)
	var de *DeclaredError
	if !errors.As(err, &de) || !errors.Is(err, budget.ErrExceeded) || decoded != 0 {
		t.Fatalf("Decode = %v after %d records, want a DeclaredError before any", err, decoded)
	}
}

// The bundler's records are decoded flat (RecordsOptions.Flat): archive
// members expanded side by side, on one budget, are not nested in one
// another, and each is still charged.
func TestExpandSideBySide(t *testing.T) {
	rec := compressed(t, "payload")
	in, err := OpenInput(inputFile(t, rec), InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var inner *Input
	var innerErr error
	first, err := in.Expand(&in.Source, DecodeOptions{Decoded: func(*CCOBRecord) {
		inner, innerErr = in.Expand(&in.Source, DecodeOptions{})
	}})
	if err != nil || innerErr != nil {
		t.Fatalf("a member expanded while another is: %v, %v", err, innerErr)
	}
	defer first.Close()
	defer inner.Close()
	if used := in.budget.Used(); used != 14 {
		t.Fatalf("budget used %d, want 2 × 7 bytes", used)
	}
}

// A temporary file that cannot be made fails its record, a *RecordError at
// the record's offset, as the rest of its decoding would (the bundler
// words it as a failed decompression).
func TestDecodeSpillFailure(t *testing.T) {
	input := compressed(t, "payload")
	in, err := OpenInput(inputFile(t, input), InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	err = in.Decode(DecodeOptions{TempDir: filepath.Join(t.TempDir(), "missing")}, nil)
	var re *RecordError
	if !errors.As(err, &re) || re.Offset != 0 || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Decode = %v, want the record at 0 failing for its temporary file", err)
	}
}
