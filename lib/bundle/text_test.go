package bundle

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// refText is the -type=i example of docs/provenance.md#text-bundle, checked against
// clang-offload-bundler-22: "int host;\n" (trailing newline) and "int dev;"
// (none).
const refText = "\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n" +
	"int host;\n" +
	"\n// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n" +
	"\n// __CLANG_OFFLOAD_BUNDLE____START__ openmp-amdgcn-amd-amdhsa--gfx906\n" +
	"int dev;" +
	"\n// __CLANG_OFFLOAD_BUNDLE____END__ openmp-amdgcn-amd-amdhsa--gfx906\n"

var refTextIDs = []string{"host-x86_64-unknown-linux-gnu-", "openmp-amdgcn-amd-amdhsa--gfx906"}

func TestCommentFor(t *testing.T) {
	for typ, want := range map[string]string{"i": "//", "ii": "//", "cui": "//", "hipi": "//", "ll": ";", "s": "#", "d": "#"} {
		if got, ok := CommentFor(typ); !ok || got != want {
			t.Errorf("CommentFor(%q) = %q, %v", typ, got, ok)
		}
	}
	for _, typ := range []string{"bc", "o", "a", "gch", "ast", "", "I"} {
		if _, ok := CommentFor(typ); ok {
			t.Errorf("CommentFor(%q) ok", typ)
		}
	}
}

func TestWriteTextReference(t *testing.T) {
	var buf bytes.Buffer
	srcs := []io.Reader{strings.NewReader("int host;\n"), iotest.HalfReader(strings.NewReader("int dev;"))}
	if err := WriteText(&buf, "//", refTextIDs, srcs); err != nil {
		t.Fatal(err)
	}
	if buf.String() != refText {
		t.Fatalf("got\n%q\nwant\n%q", buf.String(), refText)
	}
}

func TestReadTextReference(t *testing.T) {
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"dataerr": iotest.DataErrReader,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ReadText(wrap(strings.NewReader(refText)), "//")
			if err != nil {
				t.Fatal(err)
			}
			want := []TextEntry{{refTextIDs[0], []byte("int host;\n")}, {refTextIDs[1], []byte("int dev;")}}
			checkEntries(t, got, want)
		})
	}
}

func checkEntries(t *testing.T, got, want []TextEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %q", len(got), len(want), got)
	}
	for i := range got {
		if got[i].ID != want[i].ID || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("entry %d = %q %q, want %q %q", i, got[i].ID, got[i].Data, want[i].ID, want[i].Data)
		}
	}
}

func start(id string) string { return "\n; __CLANG_OFFLOAD_BUNDLE____START__ " + id + "\n" }
func end(id string) string   { return "\n; __CLANG_OFFLOAD_BUNDLE____END__ " + id + "\n" }

// TestReadTextLLVMSemantics covers inputs LLVM accepts.
func TestReadTextLLVMSemantics(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []TextEntry
	}{
		{"empty-payload", start("a") + end("a"), []TextEntry{{"a", []byte{}}}},
		{"newline-payload", start("a") + "\n" + end("a"), []TextEntry{{"a", []byte("\n")}}},
		{"leading-garbage", "garbage" + start("a") + "x" + end("a"), []TextEntry{{"a", []byte("x")}}},
		{"garbage-between", start("a") + "x" + end("a") + "junk\n" + start("b") + "y" + end("b") + "tail",
			[]TextEntry{{"a", []byte("x")}, {"b", []byte("y")}}},
		{"end-line-at-eof", start("a") + "x" + strings.TrimSuffix(end("a"), "\n"), []TextEntry{{"a", []byte("x")}}},
		{"other-comment-ignored", "\n// __CLANG_OFFLOAD_BUNDLE____START__ z\n" + start("a") + "x" + end("a"),
			[]TextEntry{{"a", []byte("x")}}},
		// A start marker glued to an end line lends its newline to that
		// line, so LLVM no longer sees it and stops after "a".
		{"start-glued-to-end-line", start("a") + "x" + strings.TrimSuffix(end("a"), "\n") + start("b") + "y" + end("b"),
			[]TextEntry{{"a", []byte("x")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadText(strings.NewReader(tc.in), ";")
			if err != nil {
				t.Fatal(err)
			}
			checkEntries(t, got, tc.want)
		})
	}
}

func TestReadTextErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    error
		wantOff int64
	}{
		{"empty", "", ErrNotBundle, 0},
		{"plain-source", "int x;\n", ErrNotBundle, 0},
		{"no-leading-newline", strings.TrimPrefix(start("a"), "\n") + "x" + end("a"), ErrNotBundle, 0},
		{"missing-end", start("a") + "xyz", ErrTruncated, int64(len(start("a")))},
		{"start-unterminated", strings.TrimSuffix(start("a"), "\n"), ErrTruncated, int64(len(start("a")) - 2)},
		{"empty-id", start("") + end(""), ErrBadEntry, int64(len(start("")) - 1)},
		{"end-id-mismatch", start("a") + "x" + end("b"), ErrBadEntry, int64(len(start("a")+"x"+end("b")) - 2)},
		{"duplicate", start("a") + end("a") + start("a") + end("a"), ErrDuplicateID, int64(2*len(start("a"))+len(end("a"))) - 2},
		{"id-too-long", start(strings.Repeat("x", MaxIDLength+1)) + end("x"), ErrBadEntry, 0},
		{"id-line-endless", "\n; __CLANG_OFFLOAD_BUNDLE____START__ " + strings.Repeat("x", 3*MaxIDLength), ErrBadEntry, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadText(strings.NewReader(tc.in), ";")
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not a *FormatError", err)
			}
			if tc.wantOff != 0 && fe.Off != tc.wantOff {
				t.Errorf("offset %d, want %d (%v)", fe.Off, tc.wantOff, err)
			}
		})
	}
	if _, err := ReadText(strings.NewReader(refText), ""); err == nil {
		t.Error("empty comment accepted")
	}
	// A read error is passed through, and sticks.
	tr := NewTextReader(io.MultiReader(strings.NewReader(start("a")+"x"), iotest.ErrReader(io.ErrClosedPipe)), ";")
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(tr); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read: %v", err)
	}
	if _, err := tr.Next(); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Next after error: %v", err)
	}
}

// TestTextReaderStreaming reads payloads much larger than the reader's
// buffer, with end markers landing at every alignment relative to it, and
// checks that Next skips unread payloads.
func TestTextReaderStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{textBufSize - 40, textBufSize - 1, textBufSize, textBufSize + 17, 3*textBufSize + 5} {
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = "ab\n;_ "[rng.IntN(6)]
		}
		in := start("a") + string(payload) + end("a") + start("b") + "tail\n" + end("b")
		got, err := ReadText(strings.NewReader(in), ";")
		if err != nil {
			t.Fatal(err)
		}
		checkEntries(t, got, []TextEntry{{"a", payload}, {"b", []byte("tail\n")}})

		tr := NewTextReader(iotest.OneByteReader(strings.NewReader(in)), ";")
		if id, err := tr.Next(); err != nil || id != "a" {
			t.Fatalf("Next = %q, %v", id, err)
		}
		if _, err := io.ReadFull(tr, make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		if id, err := tr.Next(); err != nil || id != "b" {
			t.Fatalf("Next after partial read = %q, %v", id, err)
		}
		if _, err := tr.Next(); err != io.EOF {
			t.Fatalf("Next at end = %v", err)
		}
		if _, err := tr.Next(); err != io.EOF {
			t.Fatalf("Next again at end = %v", err)
		}
	}
}

// TestReadTextTruncation cuts a valid bundle at every length: each prefix
// either fails or yields a prefix of the entries, with exact payloads.
func TestReadTextTruncation(t *testing.T) {
	want := []TextEntry{{refTextIDs[0], []byte("int host;\n")}, {refTextIDs[1], []byte("int dev;")}}
	for n := range len(refText) {
		got, err := ReadText(strings.NewReader(refText[:n]), "//")
		if err != nil {
			continue
		}
		if len(got) > len(want) {
			t.Fatalf("prefix %d: %d entries", n, len(got))
		}
		checkEntries(t, got, want[:len(got)])
	}
}

func TestWriteTextErrors(t *testing.T) {
	src := func(s string) io.Reader { return strings.NewReader(s) }
	tests := []struct {
		name    string
		comment string
		ids     []string
		srcs    []io.Reader
		want    error
	}{
		{"newline-id", "//", []string{"a\nb"}, []io.Reader{src("")}, ErrBadID},
		{"empty-id", "//", []string{""}, []io.Reader{src("")}, ErrBadID},
		{"dup", "//", []string{"a", "a"}, []io.Reader{src(""), src("")}, ErrDuplicateID},
		{"end-marker", "//", []string{"a"}, []io.Reader{src("x\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n")}, ErrMarkerInPayload},
		{"start-marker-split", "#", []string{"a"},
			[]io.Reader{iotest.OneByteReader(src("x\n# __CLANG_OFFLOAD_BUNDLE____START__ b\n"))}, ErrMarkerInPayload},
		{"read-error", "#", []string{"a"}, []io.Reader{iotest.ErrReader(io.ErrClosedPipe)}, io.ErrClosedPipe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := WriteText(io.Discard, tc.comment, tc.ids, tc.srcs); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	for _, c := range []string{"", "a\nb"} {
		if err := WriteText(io.Discard, c, []string{"a"}, []io.Reader{src("")}); err == nil {
			t.Errorf("comment %q accepted", c)
		}
	}
	// Marker text under another comment, or without its leading newline,
	// is harmless and allowed.
	ok := []string{"// __CLANG_OFFLOAD_BUNDLE____END__ a\n", "\n; __CLANG_OFFLOAD_BUNDLE____END__ a\n"}
	for _, p := range ok {
		var buf bytes.Buffer
		if err := WriteText(&buf, "//", []string{"a"}, []io.Reader{src(p)}); err != nil {
			t.Errorf("payload %q: %v", p, err)
			continue
		}
		got, err := ReadText(&buf, "//")
		if err != nil {
			t.Fatal(err)
		}
		checkEntries(t, got, []TextEntry{{"a", []byte(p)}})
	}
}
