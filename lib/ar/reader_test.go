package ar

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// hdr builds a raw member header by hand (independent of the writer).
func hdr(name, size string) string {
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	return pad(name, 16) + pad("0", 12) + pad("0", 6) + pad("0", 6) + pad("644", 8) + pad(size, 10) + "`\n"
}

type entry struct{ name, data string }

func readAll(t *testing.T, b []byte) ([]entry, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	var got []entry
	for {
		m, err := r.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil && !errors.Is(err, ErrInsecurePath) {
			return got, err
		}
		data, rerr := io.ReadAll(m.Open(bytes.NewReader(b)))
		if rerr != nil {
			t.Fatal(rerr)
		}
		got = append(got, entry{m.Name, string(data)})
	}
}

func TestReaderHandVectors(t *testing.T) {
	gnuNames := "averyveryverylongname17/\nx/y.o/\n"
	tests := []struct {
		name string
		in   string
		want []entry
	}{
		{"empty", "!<arch>\n", nil},
		{"gnu short odd", "!<arch>\n" + hdr("a.o/", "3") + "abc\n" + hdr("b/", "0"), []entry{{"a.o", "abc"}, {"b", ""}}},
		{"gnu missing final pad", "!<arch>\n" + hdr("a/", "1") + "z", []entry{{"a", "z"}}},
		{"gnu symtab and long names", "!<arch>\n" + hdr("/", "8") + "\x00\x00\x00\x00\x00\x00\x00\x00" +
			hdr("//", "32") + gnuNames + hdr("/0", "2") + "hi" + hdr("/25", "1") + "q\n",
			[]entry{{"averyveryverylongname17", "hi"}, {"x/y.o", "q"}}},
		{"gnu sym64", "!<arch>\n" + hdr("/SYM64/", "8") + "\x00\x00\x00\x00\x00\x00\x00\x00" + hdr("k/", "2") + "kk",
			[]entry{{"k", "kk"}}},
		{"bsd", "!<arch>\n" + hdr("#1/12", "20") + "__.SYMDEF\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00\x00" +
			hdr("#1/4", "7") + "x1\x00\x00abc\n" + hdr("short", "2") + "ab",
			[]entry{{"x1", "abc"}, {"short", "ab"}}},
		{"bsd short symdef", "!<arch>\n" + hdr("__.SYMDEF", "4") + "\x00\x00\x00\x00" + hdr("m", "1") + "m\n",
			[]entry{{"m", "m"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("member %d: got %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"too small", "!<arc", ErrTooSmall},
		{"zero", "", ErrTooSmall},
		{"not archive", "\x7fELF\x02\x01\x01\x00\x00", ErrNotArchive},
		{"thin", "!<thin>\n" + hdr("//", "4") + "a/\n\n", ErrThin},
		{"truncated header", "!<arch>\n" + hdr("a/", "1")[:59], ErrFormat},
		{"bad fmag", "!<arch>\n" + hdr("a/", "1")[:58] + "xx" + "a", ErrFormat},
		{"size past end", "!<arch>\n" + hdr("a/", "5") + "abc", ErrFormat},
		{"bad size", "!<arch>\n" + hdr("a/", "1x") + "ab", ErrFormat},
		{"negative size", "!<arch>\n" + hdr("a/", "-1") + "ab", ErrFormat},
		{"long name without table", "!<arch>\n" + hdr("/0", "1") + "a\n", ErrFormat},
		{"long name past table", "!<arch>\n" + hdr("//", "4") + "ab/\n" + hdr("/4", "1") + "a\n", ErrFormat},
		{"bad long name", "!<arch>\n" + hdr("/x", "1") + "a\n", ErrFormat},
		{"bsd name too long", "!<arch>\n" + hdr("#1/9", "3") + "abc\n", ErrFormat},
		{"bad mode", "!<arch>\n" + strings.Replace(hdr("a/", "1"), "644 ", "649 ", 1) + "a\n", ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(t, []byte(tc.in))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestTooSmallMatchesLLVM(t *testing.T) {
	if ErrTooSmall.Error() != "file too small to be an archive" {
		t.Fatalf("ErrTooSmall = %q", ErrTooSmall)
	}
}

func TestInsecurePath(t *testing.T) {
	in := "!<arch>\n" + hdr("//", "8") + "../x.o/\n" + hdr("/0", "1") + "a\n" + hdr("ok/", "1") + "b\n"
	r, err := NewReader(strings.NewReader(in), int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Next()
	if !errors.Is(err, ErrInsecurePath) || m == nil || m.Name != "../x.o" {
		t.Fatalf("got %v, %v; want member ../x.o with ErrInsecurePath", m, err)
	}
	m, err = r.Next()
	if err != nil || m.Name != "ok" {
		t.Fatalf("after insecure member: %v, %v", m, err)
	}
}

func TestStickyError(t *testing.T) {
	in := "!<arch>\n" + hdr("a/", "9") + "a"
	r, _ := NewReader(strings.NewReader(in), int64(len(in)))
	_, err1 := r.Next()
	_, err2 := r.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v, want the same error twice", err1, err2)
	}
}

func TestMemberAttrs(t *testing.T) {
	in := "!<arch>\n" + "name/           1700000000  1000  100   100755  2         `\n" + "ab"
	r, _ := NewReader(strings.NewReader(in), int64(len(in)))
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	want := Member{Name: "name", HeaderOffset: 8, Offset: 68, Size: 2, ModTime: 1700000000, UID: 1000, GID: 100, Mode: 0o100755}
	if *m != want {
		t.Fatalf("got %+v, want %+v", *m, want)
	}
}

// TestReadTruncation cuts valid archives at every offset: always an error
// or a clean shorter read, never a panic.
func TestReadTruncation(t *testing.T) {
	for _, in := range seedArchives() {
		for n := 0; n < len(in); n++ {
			got, err := readAll(t, []byte(in[:n]))
			if err == nil && n < len(in)-1 && len(got) > 0 {
				// A cut on a member boundary reads fewer members cleanly.
				full, _ := readAll(t, []byte(in))
				if len(got) >= len(full) {
					t.Fatalf("cut at %d of %d read all %d members", n, len(in), len(got))
				}
			}
		}
	}
}

func seedArchives() []string {
	return []string{
		"!<arch>\n" + hdr("/", "8") + "\x00\x00\x00\x00\x00\x00\x00\x00" +
			hdr("//", "26") + "averyveryverylongname17/\n\n" + hdr("/0", "3") + "abc\n" + hdr("x/", "2") + "xy",
		"!<arch>\n" + hdr("#1/12", "20") + "__.SYMDEF\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00\x00" +
			hdr("#1/4", "7") + "x1\x00\x00abc\n",
	}
}
