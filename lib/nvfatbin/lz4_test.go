package nvfatbin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"strings"
	"testing"
)

func TestDecompressRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		size int
	}{
		{"offset 0", []byte{0x10, 'a', 0, 0}, 10},
		{"offset before the start", []byte{0x10, 'a', 2, 0}, 10},
		{"literals past the input", []byte{0x50, 'a'}, 10},
		{"literals past the size", []byte{0x30, 'a', 'b', 'c'}, 2},
		{"match past the size", []byte{0x1f, 'a', 1, 0, 200}, 20},
		{"truncated offset", []byte{0x10, 'a', 1}, 10},
		{"truncated length", []byte{0xf0}, 10},
		{"short of the size", []byte{0x20, 'a', 'b'}, 3},
	} {
		_, err := Decompress(c.in, c.size)
		var de *DecompressError
		if !errors.As(err, &de) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want a DecompressError", c.name, err)
		}
	}
}

// An overlapping match (offset 1) repeats a byte: LZ4's run encoding.
func TestDecompressOverlap(t *testing.T) {
	got, err := Decompress([]byte{0x1f, 'a', 1, 0, 1, 0x00}, 1+4+15+1)
	if err != nil || string(got) != "aaaaaaaaaaaaaaaaaaaaa" {
		t.Fatalf("%q, %v", got, err)
	}
}

func FuzzDecompress(f *testing.F) {
	f.Add([]byte{0x1f, 'a', 1, 0, 1, 0x00}, uint16(21))
	c, _ := Compress(bytes.Repeat([]byte("fat binary "), 40))
	f.Add(c, uint16(440))
	f.Fuzz(func(t *testing.T, b []byte, size uint16) {
		out, err := Decompress(b, int(size))
		if err == nil && len(out) != int(size) {
			t.Fatalf("decoded %d bytes, %d declared", len(out), size)
		}
	})
}

// FuzzCompress: what Compress writes, Decompress reads back.
func FuzzCompress(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabc"))
	f.Add(bytes.Repeat([]byte{0}, 1000))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Compress(b)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decompress(c, len(b))
		if err != nil || !bytes.Equal(d, b) {
			t.Fatalf("round trip of %d bytes: %v", len(b), err)
		}
	})
}

// FuzzWriteRead: what Write writes, Read reads back: each entry's kind,
// architecture, strings, compression, and its image (the cubin, or the
// PTX as fatbinary stores it).
func FuzzWriteRead(f *testing.F) {
	f.Add([]byte("\x00.version 7.8\n\t// c\nx  y\n"), uint8(80), uint8(0), "k.cu", "-O3")
	f.Add([]byte("some cubin bytes"), uint8(52), uint8(7), "", "")
	f.Add([]byte("\x00.version 9.0\n\t// c\nx  y\n"), uint8(90), uint8(8), "k1.cu", "")
	f.Add([]byte("some cubin bytes, some cubin bytes"), uint8(100), uint8(8|2<<4), "", "-O3")
	f.Add([]byte("some cubin bytes, some cubin bytes"), uint8(120), uint8(8|3<<4|2), "", "")
	f.Fuzz(func(t *testing.T, data []byte, arch, mode uint8, ident, opts string) {
		if arch == 0 || len(data) > 1<<16 {
			return
		}
		cubin := fakeCubin(int(arch), data)
		ptx := append([]byte(".version 7.8\n"), data...)
		// CUDA 13 writes architecture-specific targets; 11.8 has none.
		a := mode&8 != 0 && HasAccelerated(int(arch))
		images := []Image{{Kind: KindELF, Arch: int(arch), Accelerated: a, Data: cubin}, {Kind: KindPTX, Arch: int(arch), Accelerated: a, Data: ptx}}
		opt := WriteOptions{NoCompress: mode&1 != 0, CompressAll: mode&2 != 0, Debug: mode&4 != 0, Ident: ident, PTXASOptions: opts}
		if mode&8 != 0 { // CUDA 13: ZSTD, and its --compress-mode
			opt.Release = CUDA130
			opt.CompressMode = []CompressMode{"", ModeDefault, ModeSize, ModeSpeed, ModeBalance, ModeNone}[int(mode>>4)%6]
		}
		b, err := Write(images, opt)
		if err != nil {
			t.Fatal(err)
		}
		es, err := ReadAll(bytes.NewReader(b), int64(len(b)))
		if err != nil || len(es) != 2 {
			t.Fatalf("read back: %d entries, %v", len(es), err)
		}
		for i, e := range es {
			wantOpts := opts
			if e.Kind == KindELF {
				wantOpts = ""
			}
			if e.Kind != images[i].Kind || e.Arch != int(arch) || e.Accelerated != a || e.Ident != ident || e.PTXASOptions != wantOpts {
				t.Fatalf("entry %d read back as %+v", i, e)
			}
			im, err := e.Image(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			want := cubin
			if e.Kind == KindPTX {
				want = MinifyPTX(ptx)
				want = want[:bytes.IndexByte(want, 0)]
			}
			if !bytes.Equal(im, want) {
				t.Fatalf("entry %d: image of %d bytes, want %d", i, len(im), len(want))
			}
		}
	})
}

// fakeCubin is an ELF64 header for sm_arch with no tables, then data: its
// ELF size is the whole file, so Image returns it all.
func fakeCubin(arch int, data []byte) []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01\x33\x07")
	binary.LittleEndian.PutUint32(h[48:], uint32(arch))
	// A program header table ending at the end of the file makes that the
	// ELF's size.
	binary.LittleEndian.PutUint64(h[32:], uint64(64+len(data)))
	binary.LittleEndian.PutUint16(h[54:], 56)
	out := append(h, data...)
	return out
}

// An identifier too long for a reader to take back is refused by Write,
// naming the image.
func TestWriteRefusesHugeHeader(t *testing.T) {
	cubin := fakeCubin(70, []byte("data"))
	_, err := Write([]Image{{Kind: KindELF, Arch: 70, Data: cubin, Name: "k.cubin"}}, WriteOptions{Ident: string(make([]byte, entryMax))})
	var ie *ImageError
	if !errors.As(err, &ie) || ie.Name != "k.cubin" {
		t.Fatalf("got %v, want an ImageError for k.cubin", err)
	}
}

// A decoding error of a compressed entry is reported once prefixed, at
// its offset in the input.
func TestImageDecodeErrorOffset(t *testing.T) {
	b, err := Write([]Image{{Kind: KindPTX, Arch: 70, Data: []byte(".version 7.8\n.target sm_70\n.target sm_70\n.target sm_70\n")}}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[16+56:], binary.LittleEndian.Uint64(b[16+56:])+1) // declare one byte more
	es, err := ReadAll(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = es[0].Image(bytes.NewReader(b))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Off <= es[0].Offset || strings.Count(err.Error(), "nvfatbin:") != 1 {
		t.Fatalf("got %v", err)
	}
}

// writeRecorder counts what DecompressTo writes and the largest write.
type writeRecorder struct {
	bytes.Buffer
	largest int
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// DecompressTo holds about 1 MiB whatever the output's size: a block of
// a few hundred bytes declaring 64 MiB of one byte, and 3 MiB of data
// whose matches reach up to 65535 bytes back across its flushes, both
// come out right in writes of at most flushAt bytes.
func TestDecompressToFlat(t *testing.T) {
	// One literal, then one match of 64 MiB - 1 at offset 1.
	run := []byte{0x1f, 'z', 1, 0}
	rest := 64<<20 - 1 - minMatch - 15
	for ; rest >= 255; rest -= 255 {
		run = append(run, 255)
	}
	run = append(run, byte(rest), 0x00)
	var w writeRecorder
	if err := DecompressTo(&w, run, 64<<20); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 64<<20 || bytes.Count(w.Bytes(), []byte{'z'}) != 64<<20 || w.largest > flushAt {
		t.Fatalf("%d bytes, largest write %d", w.Len(), w.largest)
	}

	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 3<<20)
	rng.Read(data[:window])
	for i := window; i < len(data); i += 1000 {
		back := []int{window - 1, 4, 40000, 65000}[rng.Intn(4)]
		copy(data[i:min(i+1000, len(data))], data[i-back:])
	}
	c, err := Compress(data)
	if err != nil {
		t.Fatal(err)
	}
	w = writeRecorder{}
	if err := DecompressTo(&w, c, int64(len(data))); err != nil || !bytes.Equal(w.Bytes(), data) || w.largest > flushAt {
		t.Fatalf("round trip of 3 MiB through a %d-byte block: %v, largest write %d", len(c), err, w.largest)
	}
}

// naiveDecompress decodes an LZ4 block into one slice, by the rules
// Decompress documents, written as plainly as possible: the reference
// FuzzDecompressTo compares the streaming decoder with.
func naiveDecompress(src []byte, size int) ([]byte, bool) {
	var out []byte
	// length reads the bytes that extend a 4-bit length of 15.
	length := func(i, n int) (int, int, bool) {
		if n != 15 {
			return n, i, true
		}
		for {
			if i >= len(src) {
				return 0, 0, false
			}
			b := int(src[i])
			n, i = n+b, i+1
			if n > 1<<31 {
				return 0, 0, false
			}
			if b != 255 {
				return n, i, true
			}
		}
	}
	for i := 0; i < len(src); {
		tok := src[i]
		lit, j, ok := length(i+1, int(tok>>4))
		if !ok || lit > len(src)-j || len(out)+lit > size {
			return nil, false
		}
		out = append(out, src[j:j+lit]...)
		i = j + lit
		if i == len(src) {
			break
		}
		if i+2 > len(src) {
			return nil, false
		}
		off := int(src[i]) | int(src[i+1])<<8
		ml, j, ok := length(i+2, int(tok&15))
		if !ok || off == 0 || off > len(out) || len(out)+ml+4 > size {
			return nil, false
		}
		for k := 0; k < ml+4; k++ {
			out = append(out, out[len(out)-off])
		}
		i = j
	}
	return out, len(out) == size
}

// FuzzDecompressTo: the streaming decoder gives what a decoder holding
// everything gives, and accepts and refuses the same blocks. It writes out
// all but its 64 KiB window every 64 KiB here (every MiB in use), so that
// outputs of up to 512 KiB flush it several times. (At every 4 KiB, Go's
// fuzzer ran a handful of inputs a minute.)
func FuzzDecompressTo(f *testing.F) {
	f.Add(bigRunBlock(300<<10), uint32(300<<10))
	c, _ := Compress(bytes.Repeat([]byte("0123456789abcdef"), 1<<14))
	f.Add(c, uint32(256<<10))
	// 200 KiB of 'z', then 1000 bytes copied from 65535 back, across
	// flushes: a small input that reaches the window's far end.
	far := bigRunBlock(200 << 10)
	far = append(far[:len(far)-1], 0x0f, 0xff, 0xff, 255, 255, 255, 1000-4-15-3*255, 0x00)
	f.Add(far, uint32(200<<10+1000))
	f.Fuzz(func(t *testing.T, b []byte, size uint32) {
		size %= 512 << 10
		var w bytes.Buffer
		err := decompressTo(&w, b, int64(size), 2*window)
		want, ok := naiveDecompress(b, int(size))
		if (err == nil) != ok || ok && !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("streaming: %d bytes, %v; reference: %d bytes, %v", w.Len(), err, len(want), ok)
		}
	})
}

// bigRunBlock is a block inflating to n (> 20) bytes of 'z'.
func bigRunBlock(n int) []byte {
	b := []byte{0x1f, 'z', 1, 0}
	rest := n - 1 - minMatch - 15
	for ; rest >= 255; rest -= 255 {
		b = append(b, 255)
	}
	return append(b, byte(rest), 0x00)
}
