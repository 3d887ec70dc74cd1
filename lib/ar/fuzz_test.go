package ar

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// FuzzReader checks that the Reader never panics and that whatever it
// accepts round-trips through WriteArchive.
func FuzzReader(f *testing.F) {
	for _, s := range seedArchives() {
		f.Add([]byte(s))
	}
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("!<arch>\n" + hdr("#1/3", "4") + "abcd"))
	f.Add(hostile.ArLongNames(5, 30, 7)) // members naming tails of one long name
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		var members []WriterMember
		var datas [][]byte
		for len(members) < 1000 {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil && !errors.Is(err, ErrInsecurePath) {
				return
			}
			if m.Offset < 0 || m.Size < 0 || m.Offset+m.Size > int64(len(b)) {
				t.Fatalf("member %+v out of bounds (%d bytes)", m, len(b))
			}
			data, err := io.ReadAll(m.Open(bytes.NewReader(b)))
			if err != nil {
				t.Fatal(err)
			}
			datas = append(datas, data)
			members = append(members, WriterMember{Name: m.Name, Size: m.Size, Data: bytes.NewReader(data)})
		}
		var out bytes.Buffer
		if err := WriteArchive(&out, members); err != nil {
			return // names the writer rejects (empty, newline)
		}
		r2, err := NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for i := range members {
			m, err := r2.Next()
			if err != nil && !errors.Is(err, ErrInsecurePath) {
				t.Fatalf("re-read member %d: %v", i, err)
			}
			data, _ := io.ReadAll(m.Open(bytes.NewReader(out.Bytes())))
			if m.Name != members[i].Name || !bytes.Equal(data, datas[i]) {
				t.Fatalf("member %d: got %q, want %q", i, m.Name, members[i].Name)
			}
		}
	})
}
