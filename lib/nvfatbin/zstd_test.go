package nvfatbin

import (
	"bytes"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// DecompressZstdTo gives exactly the declared size or an error, whatever
// the frame: too short, too long, a window too large, garbage.
func TestDecompressZstdTo(t *testing.T) {
	frame, err := compressZstd([]byte("fat binary fat binary fat binary"), false)
	if err != nil {
		t.Fatal(err)
	}
	big := hostile.ZstdFrame(nil, 1<<20)
	big[5] = 20 << 3 // a 1 GiB window
	for _, c := range []struct {
		name string
		src  []byte
		size int64
		want string
	}{
		{"exact", frame, 32, ""},
		{"declared longer", frame, 33, "the frame holds 32 bytes, the entry declares 33"},
		{"declared shorter, no content size", hostile.ZstdFrame([]byte("abc"), 10), 5, "inflates to more than the 5 bytes declared"},
		{"declared longer, no content size", hostile.ZstdFrame([]byte("abc"), 10), 20, "inflated to 13 bytes, 20 declared"},
		{"window", big, 1 << 20, "a window of 1073741824 bytes"},
		{"truncated", frame[:len(frame)-3], 32, "ZSTD frame"},
		{"not a frame", []byte("LZ4?"), 4, "bad frame header"},
		{"empty", nil, 0, "bad frame header"},
	} {
		var out bytes.Buffer
		err := DecompressZstdTo(&out, c.src, c.size)
		switch {
		case c.want == "" && (err != nil || int64(out.Len()) != c.size):
			t.Errorf("%s: %d bytes, %v", c.name, out.Len(), err)
		case c.want != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want))):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		case int64(out.Len()) > c.size:
			t.Errorf("%s: wrote %d bytes of %d declared", c.name, out.Len(), c.size)
		}
	}
}

// FuzzDecompressZstd: never more than the declared size, never a panic.
func FuzzDecompressZstd(f *testing.F) {
	frame, _ := compressZstd(bytes.Repeat([]byte("cubin "), 100), false)
	f.Add(frame, uint32(600))
	f.Add(hostile.ZstdFrame([]byte("ptx"), 1<<16), uint32(3))
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		var out bytes.Buffer
		err := DecompressZstdTo(&out, src, int64(size%(1<<20)))
		if out.Len() > int(size%(1<<20)) || err == nil && out.Len() != int(size%(1<<20)) {
			t.Fatalf("%d bytes for %d declared (%v)", out.Len(), size%(1<<20), err)
		}
	})
}
