package zstdexact

import (
	"bytes"
	"testing"
)

// FuzzCompress checks that every frame Compress writes decodes (with
// klauspost's decoder) to its input, at the levels it supports (the
// optimal parser's among them), and that nothing panics.
func FuzzCompress(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabc"), uint8(5))
	f.Add(genSeeded(1, 3000)(), uint8(5))
	f.Add(genSeeded(2, 20000)(), uint8(6))
	f.Add(skipped(), uint8(8))
	f.Add(make([]byte, 300), uint8(4))
	f.Add(genSeeded(3, 5000)(), uint8(18))   // level 19: btultra2
	f.Add(genSeeded(17, 40000)(), uint8(12)) // level 13: btopt
	f.Add(repeated(), uint8(21))             // level 22
	f.Add(noise(9, 3000)(), uint8(15))
	f.Add(heterogeneous(), uint8(18)) // several blocks, cut by the splitter
	f.Fuzz(func(t *testing.T, in []byte, level uint8) {
		l := int(level%22) + 1
		if !Supported(l, len(in)) {
			if _, err := Compress(nil, in, l); err == nil {
				t.Fatalf("level %d, %d bytes: not supported, yet no error", l, len(in))
			}
			return
		}
		out, err := Compress(nil, in, l)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decode(out, len(in))
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("level %d, %d bytes: does not decode to the input (%v)", l, len(in), err)
		}
	})
}
