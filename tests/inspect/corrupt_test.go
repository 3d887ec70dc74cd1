package inspect_test

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// corruptCase is a damaged file and the offset, derived here from the
// layouts of docs/provenance.md, where inspect must say parsing stopped.
type corruptCase struct {
	name   string
	data   []byte
	offset int64  // -1: any
	reason string // a fragment of the error
}

func corruptCases(t *testing.T) []corruptCase {
	le := binary.LittleEndian
	pkgs := llvmtest.ReadFile(t, fixture(t, "packages.bin"))
	first := int64(le.Uint64(pkgs[8:])) // the first binary's Size field
	bundle := llvmtest.ReadFile(t, fixture(t, "bundle.bin"))
	// Entry i's header starts after the 24-byte magic, the 8-byte count and
	// the earlier entries (3 u64 fields and the ID each).
	entry2 := int64(32)
	for _, id := range bundleTargets[:2] {
		entry2 += 24 + int64(len(id))
	}
	lastPayload := int64(le.Uint64(bundle[entry2:]))
	zlibV3 := llvmtest.ReadFile(t, fixture(t, "ccob-v3-zlib.bin"))
	badHash := append([]byte(nil), zlibV3...)
	badHash[24] ^= 1
	zstdV3 := llvmtest.ReadFile(t, fixture(t, "ccob-v3-zstd.bin"))
	badMagic := append([]byte(nil), pkgs...)
	badMagic[first] = 0x11 // the second binary's magic
	return []corruptCase{
		// The error names the Size field (offset 8) of the binary that is cut.
		{"truncated second OffloadBinary", pkgs[:first+100], first + 8, "past end"},
		{"second OffloadBinary without its magic", badMagic, first, ""},
		{"bundle payload past the end", bundle[:lastPayload+10], entry2, "past the end"},
		{"bundle header cut", bundle[:entry2+5], entry2, ""},
		{"CCOB hash mismatch", badHash, 0, "hash mismatch"},
		{"CCOB hash mismatch, then another CCOB", append(append([]byte(nil), badHash...), zlibV3...), 0, "hash mismatch"},
		{"CCOB payload cut", zstdV3[:len(zstdV3)-10], -1, "total file size"},
	}
}

// On a damaged file inspect exits 1 and says where parsing stopped, in
// the text output and in the JSON document, with the offset in the file.
func TestInspectCorrupt(t *testing.T) {
	for _, c := range corruptCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := llvmtest.WriteFile(t, dir, "bad.bin", c.data)
			checkCorrupt(t, dir, path, c.offset, c.reason)
		})
	}
}

// A damaged member of an archive is reported at its offset in the
// archive, and the other members are still described.
func TestInspectCorruptArchiveMember(t *testing.T) {
	ar := llvmtest.Tool(t, "llvm-ar-22")
	pkgs := llvmtest.ReadFile(t, fixture(t, "packages.bin"))
	first := int64(binary.LittleEndian.Uint64(pkgs[8:]))
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "bad.bin", pkgs[:first+100])
	llvmtest.WriteFile(t, dir, "good.bin", pkgs[:first])
	mustRun(t, dir, nil, ar, "rcD", "lib.a", "good.bin", "bad.bin")
	data := llvmtest.ReadFile(t, filepath.Join(dir, "lib.a"))
	member := memberOffset(t, data, "bad.bin")
	files := checkCorrupt(t, dir, filepath.Join(dir, "lib.a"), member+first+8, "past end")
	var good bool
	walk(files[0], func(n, _ *node) { good = good || n.Name == "good.bin" && n.Format == "offload-binary" && n.Error == "" })
	if !good {
		t.Error("the intact member is not described")
	}
}

// memberOffset finds a member's data in a GNU ar archive by walking the
// 60-byte member headers.
func memberOffset(t *testing.T, a []byte, name string) int64 {
	for off := 8; off+60 <= len(a); {
		size, err := strconv.Atoi(strings.TrimSpace(string(a[off+48 : off+58])))
		if err != nil {
			t.Fatalf("bad ar header at %d", off)
		}
		if strings.TrimRight(string(a[off:off+16]), " ") == name+"/" {
			return int64(off + 60)
		}
		off += 60 + size + size%2
	}
	t.Fatalf("no member %s", name)
	return 0
}

func checkCorrupt(t *testing.T, dir, path string, offset int64, reason string) []*node {
	t.Helper()
	text := run(t, dir, nil, offloadBin, "inspect", path)
	files, js := inspectJSON(t, dir, path)
	if text.Code != 1 || js.Code != 1 {
		t.Fatalf("want exit 1 for text and JSON:\n%v\n%v", text, js)
	}
	var errs []string
	walk(files[0], func(n, _ *node) {
		if n.Error != "" {
			errs = append(errs, n.Error)
		}
		// A CCOB that fails only its hash check is still measured.
		if c := n.Compression; c != nil && !c.HashOK && (c.CompressedSize != n.Size || n.Size <= 0 || c.Ratio <= 0) {
			t.Errorf("CCOB with a bad hash: compressed size %d, node size %d, ratio %v", c.CompressedSize, n.Size, c.Ratio)
		}
	})
	if len(errs) == 0 {
		t.Fatalf("no error in the JSON document:\n%s", js.Stdout)
	}
	at := fmt.Sprintf("at offset %d", offset)
	for _, e := range errs {
		if !strings.Contains(e, reason) || offset >= 0 && !strings.Contains(e, at) || !strings.Contains(e, "offset") {
			t.Errorf("error %q: want one naming offset %d and %q", e, offset, reason)
		}
		if !strings.Contains(text.Stdout, "error: "+e) {
			t.Errorf("the text output lacks the error %q:\n%s", e, text.Stdout)
		}
	}
	return files
}
