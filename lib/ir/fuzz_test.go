package ir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/rules-offload/rules_offload/lib/bitcode"
)

// fuzzModule builds a module from fuzz input: an image, names made of any
// bytes, and a function whose instructions and reader (LLVM 19+, 15 or
// 14) shape picks.
func fuzzModule(img []byte, name string, shape uint8) *Module {
	m := &Module{Triple: name, SourceFilename: name, Reader: []int{0, 15, 14}[shape/8%3]}
	g := m.AddGlobal(name, Array(uint64(len(img)), I8))
	g.Constant, g.Linkage, g.Section, g.Align = true, Internal, name, 1<<(shape%13)
	g.Init = &Bytes{Data: bytes.NewReader(img), Size: int64(len(img))}
	pair := NamedStruct(name, I32, Ptr)
	h := m.AddGlobal(name+".pair", pair)
	h.Init = &Aggregate{T: pair, Elems: []Constant{ConstInt(I32, int64(shape)-100), g}}
	f := m.AddFunc(name+".f", Func(Void, Ptr), Internal)
	entry, loop, done := f.AddBlock(name), f.AddBlock(""), f.AddBlock(name+".done")
	entry.Br(loop)
	cur := loop.Phi(name, Ptr)
	cur.Incoming(f.Params[0], entry)
	v := Value(loop.Load(name, I32, cur, 4))
	for i := range shape % 8 {
		if i%2 == 0 {
			v = loop.And("", v, ConstInt(I32, int64(i)))
		} else {
			v = loop.LShr(name, v, ConstInt(I32, int64(i)))
		}
	}
	next := loop.GEP("", shape%2 == 0, pair, cur, ConstInt(I64, 1))
	loop.Store(v, next, 4)
	sw := loop.Switch(v, done)
	sw.Case(ConstInt(I32, int64(shape)), loop)
	cur.Incoming(next, loop)
	done.Ret()
	return m
}

// FuzzWriteBitcode checks that any such module is written, twice alike,
// as a bitstream whose framing lib/bitcode walks (it finds no symbol
// table, as in LLVM's own wrapper bitcode), and as text.
func FuzzWriteBitcode(f *testing.F) {
	f.Add([]byte("device image"), "offload", uint8(3))
	f.Add([]byte{}, "", uint8(0))
	f.Add(make([]byte, 70), "a\x00\"b\\", uint8(255))
	f.Fuzz(func(t *testing.T, img []byte, name string, shape uint8) {
		var a, b bytes.Buffer
		if err := fuzzModule(img, name, shape).WriteBitcode(&a); err != nil {
			t.Fatal(err)
		}
		if err := fuzzModule(img, name, shape).WriteBitcode(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("second write differs (%v)", err)
		}
		if _, err := bitcode.ReadSymtab(bytes.NewReader(a.Bytes()), int64(a.Len())); !errors.Is(err, bitcode.ErrNoSymtab) {
			t.Fatalf("lib/bitcode reads our bitcode as: %v", err)
		}
		if err := fuzzModule(img, name, shape).WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkWriteBitcode writes a module holding a 64 MiB image, for LLVM
// 19+ and for LLVM 14 (typed pointers).
func BenchmarkWriteBitcode(b *testing.B) {
	const size = 64 << 20
	img := make([]byte, size)
	for i := range img {
		img[i] = byte(i * 131)
	}
	for _, reader := range []int{0, 14} {
		b.Run(fmt.Sprintf("llvm%d", reader), func(b *testing.B) {
			m := &Module{Triple: "x86_64-unknown-linux-gnu", Reader: reader}
			g := m.AddGlobal("image", Array(size, I8))
			g.Init = &Bytes{Data: bytes.NewReader(img), Size: size}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := m.WriteBitcode(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
