package exactio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCopy(t *testing.T) {
	for _, tc := range []struct {
		src  string
		n    int64
		want string // "" for success
	}{
		{"abc", 3, ""},
		{"", 0, ""},
		{"ab", 3, "data ended after 2 of 3 bytes"},
		{"abcd", 3, "data longer than 3 bytes"},
	} {
		var out bytes.Buffer
		err := Copy(&out, strings.NewReader(tc.src), tc.n)
		if tc.want == "" {
			if err != nil || out.String() != tc.src {
				t.Errorf("Copy(%q, %d) = %q, %v", tc.src, tc.n, out.String(), err)
			}
			continue
		}
		var se *SizeError
		if !errors.As(err, &se) || err.Error() != tc.want {
			t.Errorf("Copy(%q, %d) error = %v, want %q", tc.src, tc.n, err, tc.want)
		}
	}
}

func TestCopyPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	err := Copy(io.Discard, io.MultiReader(strings.NewReader("ab"), errReader{boom}), 2)
	if !errors.Is(err, boom) {
		t.Fatalf("error after the data = %v, want boom", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestReadAt(t *testing.T) {
	r := strings.NewReader("abcdef")
	b := make([]byte, 3)
	if err := ReadAt(r, b, 3); err != nil || string(b) != "def" {
		t.Fatalf("ReadAt(3) = %q, %v", b, err)
	}
	if err := ReadAt(r, b, 4); err != io.ErrUnexpectedEOF {
		t.Fatalf("short ReadAt = %v, want io.ErrUnexpectedEOF", err)
	}
}
