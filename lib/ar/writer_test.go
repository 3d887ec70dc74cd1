package ar

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteArchive(&b, nil); err != nil {
		t.Fatal(err)
	}
	if b.String() != "!<arch>\n" {
		t.Fatalf("got %q", b.String())
	}
}

// TestWriteHandVector checks the writer against an archive assembled by hand
// from the format rules (independent of the writer's code).
func TestWriteHandVector(t *testing.T) {
	members := []WriterMember{
		{Name: "fifteen-chars-x", Size: 3, Data: strings.NewReader("abc")},
		{Name: "sixteen-chars-xx", Size: 0, Data: strings.NewReader("")},
		{Name: "sixteen-chars-xx", Size: 2, Data: strings.NewReader("zz")},
	}
	names := "sixteen-chars-xx/\n"
	nameHdr := "//" + strings.Repeat(" ", 46) + "18        `\n" // name table: blank date..mode
	want := "!<arch>\n" + nameHdr + names +
		hdr("fifteen-chars-x/", "3") + "abc\n" +
		hdr("/0", "0") +
		hdr("/0", "2") + "zz"
	var b bytes.Buffer
	if err := WriteArchive(&b, members); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// TestWriteEmptySymtab: objects without symbols get LLVM's 8-byte table
// (count 0, names "\0\0\0", one pad byte), written with mode 0.
func TestWriteEmptySymtab(t *testing.T) {
	var b bytes.Buffer
	err := WriteArchive(&b, []WriterMember{{Name: "o.o", Size: 1, Data: strings.NewReader("x"), Object: true}})
	if err != nil {
		t.Fatal(err)
	}
	symHdr := strings.Replace(hdr("/", "8"), "644", "0  ", 1)
	want := "!<arch>\n" + symHdr + "\x00\x00\x00\x00\x00\x00\x00\x00" + hdr("o.o/", "1") + "x\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteSymtabOffsets(t *testing.T) {
	var b bytes.Buffer
	err := WriteArchive(&b, []WriterMember{
		{Name: "a.o", Size: 1, Data: strings.NewReader("x"), Symbols: []string{"f"}},
		{Name: "b.o", Size: 2, Data: strings.NewReader("yy"), Symbols: []string{"g", "h"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// 4 (count) + 3*4 (offsets) + "f\0g\0h\0" = 22; members start at 8+60+22 = 90.
	symHdr := strings.Replace(hdr("/", "22"), "644", "0  ", 1)
	want := "!<arch>\n" + symHdr + "\x00\x00\x00\x03" + "\x00\x00\x00\x5a" +
		"\x00\x00\x00\x98\x00\x00\x00\x98" + "f\x00g\x00h\x00" +
		hdr("a.o/", "1") + "x\n" + hdr("b.o/", "2") + "yy"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		m    WriterMember
	}{
		{"empty name", WriterMember{Name: "", Size: 0, Data: strings.NewReader("")}},
		{"newline", WriterMember{Name: "a\nb", Size: 0, Data: strings.NewReader("")}},
		{"short data", WriterMember{Name: "a", Size: 3, Data: strings.NewReader("ab")}},
		{"long data", WriterMember{Name: "a", Size: 1, Data: strings.NewReader("ab")}},
		{"negative", WriterMember{Name: "a", Size: -1, Data: strings.NewReader("")}},
		{"nil data", WriterMember{Name: "a", Size: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteArchive(&b, []WriterMember{tc.m}); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	members := []WriterMember{
		{Name: "a", Size: 1, Data: strings.NewReader("1")},
		{Name: "dir/with/slash.bc", Size: 4, Data: strings.NewReader("1234")},
		{Name: strings.Repeat("n", 40), Size: 0, Data: strings.NewReader("")},
		{Name: "obj.o", Size: 3, Data: strings.NewReader("obj"), Symbols: []string{"main"}},
	}
	var b bytes.Buffer
	if err := WriteArchive(&b, members); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{{"a", "1"}, {"dir/with/slash.bc", "1234"}, {strings.Repeat("n", 40), ""}, {"obj.o", "obj"}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d: got %q, want %q", i, got[i], want[i])
		}
	}
}
