package bundler

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// An input that is not streamed (records back to back; a text bundle) is
// decoded with the records' MD5 comparisons deferred while the entries
// are copied out (container.DecodeOptions.DeferHash). A corrupt record
// still fails the job, with the words a comparison made at once gives
// (-verbose does not defer), and leaves no output.
func TestDeferredHashMismatch(t *testing.T) {
	dir := t.TempDir()
	binaryBundle := func(ids []string, payloads ...string) []byte {
		var buf bytes.Buffer
		var srcs []io.Reader
		var sizes []int64
		for _, p := range payloads {
			srcs, sizes = append(srcs, strings.NewReader(p)), append(sizes, int64(len(p)))
		}
		if err := bundle.WriteBinary(&buf, ids, sizes, srcs, 1); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var text bytes.Buffer
	comment, _ := bundle.CommentFor("s")
	if err := bundle.WriteText(&text, comment, streamIDs[:2], []io.Reader{strings.NewReader("host\n"), strings.NewReader("device\n")}); err != nil {
		t.Fatal(err)
	}
	first := compressedBytes(t, dir, binaryBundle(streamIDs[:2], "host", "device code"))
	second := compressedBytes(t, dir, binaryBundle(streamIDs[2:3], "more device code"))
	for _, c := range []struct {
		name, fileType string
		input          []byte
	}{
		{"second of two records", "o", append(append(first, 0, 0, 0, 0), corruptHash(t, second)...)},
		{"first of two records", "o", append(corruptHash(t, first), second...)},
		{"text bundle", "s", corruptHash(t, compressedBytes(t, dir, text.Bytes()))},
	} {
		in := filepath.Join(dir, "in")
		if err := os.WriteFile(in, c.input, 0o644); err != nil {
			t.Fatal(err)
		}
		var errs [2]string
		for i, verbose := range []bool{false, true} {
			out := t.TempDir()
			cfg := NewConfig()
			cfg.FileType, cfg.Targets, cfg.Inputs = c.fileType, streamIDs[:2], []string{in}
			cfg.Verbose, cfg.Stderr, cfg.TempDir = verbose, io.Discard, out
			cfg.Outputs = []string{filepath.Join(out, "out0"), filepath.Join(out, "out1")}
			errs[i] = fmt.Sprint(Unbundle(cfg))
			if left, _ := os.ReadDir(out); len(left) != 0 {
				t.Errorf("%s, verbose %v: %d outputs left", c.name, verbose, len(left))
			}
		}
		if !strings.Contains(errs[0], "Failed to decompress input: ccob: hash mismatch") || errs[0] != errs[1] {
			t.Errorf("%s: deferred %q, at once %q; want the same hash mismatch", c.name, errs[0], errs[1])
		}
	}
}

// compressedBytes is the CCOB of data.
func compressedBytes(t *testing.T, dir string, data []byte) []byte {
	t.Helper()
	b, err := os.ReadFile(writeCCOB(t, dir, "record", data, ccob.MethodZstd))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// corruptHash returns the CCOB rec with its stored hash changed.
func corruptHash(t *testing.T, rec []byte) []byte {
	t.Helper()
	h, err := ccob.ParseHeader(rec)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(rec)
	binary.LittleEndian.PutUint64(b[h.HeaderSize-8:], h.Hash^1) // the hash is the header's last field
	return b
}
