package bundle

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzReadBinary checks that ReadBinary never panics, that what it accepts
// is within bounds, and that accepted bundles survive a rewrite through
// WriteBinary.
func FuzzReadBinary(f *testing.F) {
	f.Add(refVector(f))
	f.Add([]byte(Magic + "\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(refVector(f)[:100])
	var aligned bytes.Buffer
	_ = WriteBinary(&aligned, refIDs, []int64{0, 4}, []io.Reader{strings.NewReader(""), strings.NewReader("DEV1")}, 64)
	f.Add(aligned.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		entries, err := ReadBinary(r, int64(len(data)))
		if err != nil {
			return
		}
		ids := make([]string, len(entries))
		sizes := make([]int64, len(entries))
		srcs := make([]io.Reader, len(entries))
		for i, e := range entries {
			if e.Offset < prefixSize || e.Size < 0 || e.Offset+e.Size > int64(len(data)) {
				t.Fatalf("entry %d out of bounds: %+v", i, e)
			}
			ids[i], sizes[i], srcs[i] = e.ID, e.Size, e.Open(r)
		}
		var out bytes.Buffer
		if err := WriteBinary(&out, ids, sizes, srcs, 1); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		again, err := ReadBinary(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("reread: %v", err)
		}
		for i, e := range again {
			want := data[entries[i].Offset : entries[i].Offset+entries[i].Size]
			got := out.Bytes()[e.Offset : e.Offset+e.Size]
			if e.ID != ids[i] || !bytes.Equal(got, want) {
				t.Fatalf("entry %d changed in rewrite", i)
			}
		}
	})
}

// FuzzReadText checks that the text reader never panics and that accepted
// bundles survive a rewrite through WriteText (unless a payload holds a
// start marker, which WriteText refuses).
func FuzzReadText(f *testing.F) {
	f.Add([]byte(refText), uint8(0))
	f.Add([]byte(start("a")+"x"+end("a")+"junk"+start("b")+end("b")), uint8(1))
	f.Add([]byte(start("a")+"x"), uint8(1))
	f.Add([]byte("\n# __CLANG_OFFLOAD_BUNDLE____START__ a\n\n# __CLANG_OFFLOAD_BUNDLE____END__ a"), uint8(2))
	comments := []string{"//", ";", "#"}
	f.Fuzz(func(t *testing.T, data []byte, c uint8) {
		comment := comments[int(c)%len(comments)]
		entries, err := ReadText(bytes.NewReader(data), comment)
		if err != nil {
			return
		}
		ids := make([]string, len(entries))
		srcs := make([]io.Reader, len(entries))
		for i, e := range entries {
			ids[i], srcs[i] = e.ID, bytes.NewReader(e.Data)
		}
		var out bytes.Buffer
		if err := WriteText(&out, comment, ids, srcs); err != nil {
			return // a payload holds a marker prefix
		}
		again, err := ReadText(&out, comment)
		if err != nil {
			t.Fatalf("reread: %v", err)
		}
		checkEntries(t, again, entries)
	})
}
