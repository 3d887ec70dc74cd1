package ar

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchMembers returns 1,000 members of 10 KiB, each an object with 50
// symbols, like the device archive of tests/bench.
func benchMembers() []WriterMember {
	data := bytes.Repeat([]byte("device code "), 10<<10/12)
	ms := make([]WriterMember, 1000)
	for i := range ms {
		syms := make([]string, 50)
		for j := range syms {
			syms[j] = fmt.Sprintf("_Z6kernel%dPfS_i_%d", j, i)
		}
		ms[i] = WriterMember{Name: fmt.Sprintf("lib%04d-hip-amdgcn-amd-amdhsa--gfx90alib%04d.bc", i, i), Size: int64(len(data)), Data: bytes.NewReader(data), Object: true, Symbols: syms}
	}
	return ms
}

// BenchmarkWriteArchive writes the members and their symbol table.
func BenchmarkWriteArchive(b *testing.B) {
	ms := benchMembers()
	b.SetBytes(int64(len(ms)) * ms[0].Size)
	b.ReportAllocs()
	for b.Loop() {
		for i := range ms {
			ms[i].Data.(*bytes.Reader).Seek(0, io.SeekStart)
		}
		if err := WriteArchive(io.Discard, ms); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReader walks the member list of the same archive.
func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteArchive(&buf, benchMembers()); err != nil {
		b.Fatal(err)
	}
	in := bytes.NewReader(buf.Bytes())
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(in, in.Size())
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("%d members, want 1000", n)
		}
	}
}
