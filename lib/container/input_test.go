package container

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// inputFile writes b to a file and returns its name.
func inputFile(t *testing.T, b []byte) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// badHash returns the CCOB rec with its stored hash changed.
func badHash(t *testing.T, rec []byte) []byte {
	t.Helper()
	h, err := ccob.ParseHeader(rec)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(rec)
	binary.LittleEndian.PutUint64(b[h.HeaderSize-8:], h.Hash^1) // the header's last field
	return b
}

// openDecoded opens the input b and decodes it.
func openDecoded(t *testing.T, b []byte, opt DecodeOptions, stream Stream) *Input {
	t.Helper()
	in, err := OpenInput(inputFile(t, b), InputOptions{TempDir: opt.TempDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Decode(opt, stream); err != nil {
		t.Fatal(err)
	}
	return in
}

func partText(t *testing.T, p *Source) string {
	t.Helper()
	b, err := io.ReadAll(p.Reader())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A deferred hash mismatch is the input's to report, at the record it is
// in: the parts are usable before Check, and Check names the second
// record's offset, after the first record and the padding.
func TestInputCheckNamesRecord(t *testing.T) {
	first := compressed(t, "first bundle")
	input := append(append(bytes.Clone(first), 0, 0, 0), badHash(t, compressed(t, "second"))...)
	in := openDecoded(t, input, DecodeOptions{TempDir: t.TempDir(), DeferHash: true}, nil)
	defer in.Close()
	if len(in.Parts) != 2 || partText(t, in.Parts[1]) != "second" || !in.Compressed {
		t.Fatalf("%d parts, compressed %v", len(in.Parts), in.Compressed)
	}
	err := in.Check()
	var re *RecordError
	if !errors.As(err, &re) || !errors.Is(err, ccob.ErrHashMismatch) || re.Offset != int64(len(first)+3) {
		t.Fatalf("Check: %v, want the hash mismatch of the record at %d", err, len(first)+3)
	}
	if again := in.Check(); again == nil || again.Error() != err.Error() {
		t.Fatalf("Check again: %v, want %v", again, err)
	}
}

// An input without the CCOB magic is its own one part.
func TestInputUncompressed(t *testing.T) {
	in := openDecoded(t, []byte("plain bytes"), DecodeOptions{}, nil)
	defer in.Close()
	if in.Compressed || len(in.Parts) != 1 || in.Parts[0] != &in.Source || in.Check() != nil {
		t.Fatalf("compressed %v, %d parts", in.Compressed, len(in.Parts))
	}
}

// sink takes the decoded bytes, or spools them all when spool is set.
type sink struct {
	spool io.Writer
	took  bytes.Buffer
	spill bool
}

func (s *sink) Write(p []byte) (int, error) {
	if s.spill {
		return s.spool.Write(p)
	}
	return s.took.Write(p)
}

func (s *sink) Finish() (bool, error) { return s.spill, nil }

// One record is offered to the sink: taken whole, the input is Streamed
// with no parts, and its hash still has to pass Check; spooled, the spool
// is the one part. Two records are never offered.
func TestInputStream(t *testing.T) {
	rec := compressed(t, "one bundle")
	for _, c := range []struct {
		name   string
		input  []byte
		spill  bool
		offers int
		parts  []string
		check  bool // Check fails
	}{
		{"taken", rec, false, 1, nil, false},
		{"taken, bad hash", badHash(t, rec), false, 1, nil, true},
		{"spooled", append(bytes.Clone(rec), 0, 0), true, 1, []string{"one bundle"}, false},
		{"two records", append(bytes.Clone(rec), rec...), false, 0, []string{"one bundle", "one bundle"}, false},
	} {
		s := &sink{spill: c.spill}
		offers := 0
		stream := func(h ccob.Header, spool io.Writer) Sink {
			offers++
			s.spool = spool
			return s
		}
		in := openDecoded(t, c.input, DecodeOptions{TempDir: t.TempDir(), DeferHash: true}, stream)
		var parts []string
		for _, p := range in.Parts {
			parts = append(parts, partText(t, p))
		}
		switch {
		case offers != c.offers:
			t.Errorf("%s: offered %d times, want %d", c.name, offers, c.offers)
		case in.Streamed != (c.parts == nil) || len(parts) != len(c.parts):
			t.Errorf("%s: streamed %v, parts %q, want %q", c.name, in.Streamed, parts, c.parts)
		case c.parts == nil && s.took.String() != "one bundle":
			t.Errorf("%s: the sink took %q", c.name, s.took.String())
		case (in.Check() != nil) != c.check:
			t.Errorf("%s: Check: %v", c.name, in.Check())
		}
		in.Close()
	}
}

// A version this does not know is a *VersionError with the version the
// record declares, for the caller's message.
func TestInputUnknownVersion(t *testing.T) {
	rec := compressed(t, "bundle")
	binary.LittleEndian.PutUint16(rec[4:], 9)
	in, err := OpenInput(inputFile(t, rec), InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	err = in.Decode(DecodeOptions{}, nil)
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Version != 9 || !errors.Is(err, ccob.ErrUnknownVersion) {
		t.Fatalf("got %v, want version 9 unknown", err)
	}
}

// The parts of an input that Expand decodes (archive members) are charged
// to the input's one budget: the second does not fit what the first left.
func TestExpandSharesBudget(t *testing.T) {
	rec := compressed(t, "sixteen bytes..!")
	in, err := OpenInput(inputFile(t, rec), InputOptions{Limit: 20, LimitHint: "raise it"})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	part, err := in.Expand(&in.Source, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer part.Close()
	_, err = in.Expand(&in.Source, DecodeOptions{})
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Used != 16 || ee.Hint != "raise it" {
		t.Fatalf("second part: %v, want the budget exceeded after 16 bytes", err)
	}
}

// FuzzInputDecode decodes arbitrary inputs, streamed into a sink that
// takes or spools them, or record by record: errors are fine, panics are
// not, and a decoded input's parts stay within its budget.
func FuzzInputDecode(f *testing.F) {
	tmp, err := os.CreateTemp(f.TempDir(), "ccob")
	if err != nil {
		f.Fatal(err)
	}
	defer tmp.Close()
	if _, err := ccob.Compress(tmp, bytes.NewReader([]byte("a bundle")), 8, ccob.WriterOptions{Method: ccob.MethodZstd}); err != nil {
		f.Fatal(err)
	}
	rec, err := os.ReadFile(tmp.Name())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rec, false, true)
	f.Add(append(append(bytes.Clone(rec), 0, 0), rec...), true, false)
	f.Add([]byte("CCOB\x03\x00\x01\x00"), true, true)
	f.Fuzz(func(t *testing.T, data []byte, spill, stream bool) {
		in, err := OpenInput(inputFile(t, data), InputOptions{TempDir: t.TempDir(), Limit: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		s := &sink{spill: spill}
		var offer Stream
		if stream {
			offer = func(h ccob.Header, spool io.Writer) Sink {
				s.spool = spool
				return s
			}
		}
		if err := in.Decode(DecodeOptions{TempDir: t.TempDir(), DeferHash: true}, offer); err != nil {
			return
		}
		in.Check()
		total := int64(0)
		for _, p := range in.Parts {
			total += p.Size
		}
		if in.Streamed && len(in.Parts) != 0 || in.Compressed && total > 1<<20 {
			t.Fatalf("streamed %v with %d parts, %d bytes decoded", in.Streamed, len(in.Parts), total)
		}
	})
}
