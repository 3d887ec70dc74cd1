package bitcode

import (
	"encoding/binary"
)

// bitWriter writes a bitstream for tests, following BitCodeFormat.rst
// (fields fill each byte from bit 0 up). It exists to build hostile and
// unusual streams; expected results come from the format rules, not from
// this writer.
type bitWriter struct {
	buf   []byte
	n     uint64 // bits written
	width uint   // current abbreviation ID width
	outer []blockMark
}

type blockMark struct {
	width  uint
	lenBit uint64 // where the length word starts
}

func newStream() *bitWriter {
	w := &bitWriter{width: topLevelWidth}
	w.bytes([]byte(RawMagic))
	return w
}

func (w *bitWriter) bits(v uint64, width uint) *bitWriter {
	for i := uint(0); i < width; i++ {
		if w.n%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 != 0 {
			w.buf[w.n/8] |= 1 << (w.n % 8)
		}
		w.n++
	}
	return w
}

func (w *bitWriter) vbr(v uint64, width uint) *bitWriter {
	hi := uint64(1) << (width - 1)
	for v >= hi {
		w.bits(v&(hi-1)|hi, width)
		v >>= width - 1
	}
	return w.bits(v, width)
}

func (w *bitWriter) align32() *bitWriter {
	for w.n%32 != 0 {
		w.bits(0, 1)
	}
	return w
}

func (w *bitWriter) bytes(b []byte) *bitWriter {
	for _, c := range b {
		w.bits(uint64(c), 8)
	}
	return w
}

// enter starts block id with abbreviation ID width aw.
func (w *bitWriter) enter(id uint64, aw uint) *bitWriter {
	w.bits(abbrevEnterSubblock, w.width).vbr(id, blockIDWidth).vbr(uint64(aw), codeLenWidth).align32()
	w.outer = append(w.outer, blockMark{w.width, w.n})
	w.bits(0, 32)
	w.width = aw
	return w
}

// end closes the innermost block and patches its length word.
func (w *bitWriter) end() *bitWriter {
	w.bits(abbrevEndBlock, w.width).align32()
	m := w.outer[len(w.outer)-1]
	w.outer = w.outer[:len(w.outer)-1]
	binary.LittleEndian.PutUint32(w.buf[m.lenBit/8:], uint32((w.n-m.lenBit-32)/32))
	w.width = m.width
	return w
}

// op is one DEFINE_ABBREV operand for define.
type op struct {
	enc uint8
	val uint64
}

func (w *bitWriter) define(ops ...op) *bitWriter {
	w.bits(abbrevDefine, w.width).vbr(uint64(len(ops)), 5)
	for _, o := range ops {
		if o.enc == opLiteral {
			w.bits(1, 1).vbr(o.val, 8)
			continue
		}
		w.bits(0, 1).bits(uint64(o.enc), 3)
		if o.enc == opFixed || o.enc == opVBR {
			w.vbr(o.val, 5)
		}
	}
	return w
}

// blobRecord writes a record with abbreviation id whose abbreviation is
// [literal code, blob].
func (w *bitWriter) blobRecord(id uint64, blob []byte) *bitWriter {
	w.bits(id, w.width).vbr(uint64(len(blob)), 6).align32().bytes(blob)
	return w.align32()
}

// unabbrev writes an UNABBREV_RECORD.
func (w *bitWriter) unabbrev(code uint64, vals ...uint64) *bitWriter {
	w.bits(abbrevUnabbrev, w.width).vbr(code, 6).vbr(uint64(len(vals)), 6)
	for _, v := range vals {
		w.vbr(v, 6)
	}
	return w
}

// blobBlock writes a block holding one [literal code, blob] record.
func (w *bitWriter) blobBlock(id uint64, blob []byte) *bitWriter {
	return w.enter(id, 3).define(op{opLiteral, 1}, op{enc: opBlob}).blobRecord(firstUserAbbrev, blob).end()
}

// module writes an empty module block; the reader only counts modules.
func (w *bitWriter) module() *bitWriter { return w.enter(moduleBlockID, 3).end() }

func (w *bitWriter) done() []byte {
	w.align32()
	return w.buf
}

// testSymbol is a symbol for buildSymtab.
type testSymbol struct {
	name, irName string
	flags        Flags
}

// buildSymtab lays out an irsymtab blob and its string table by the
// storage structs of llvm/Object/IRSymtab.h, version 3: Header (76 bytes),
// Module {Begin, End, UncBegin}, Symbol {Name, IRName, ComdatIndex, Flags}.
func buildSymtab(version uint32, modules int, syms []testSymbol) (symtab, strtab []byte) {
	str := func(s string) [2]uint32 {
		off := uint32(len(strtab))
		strtab = append(strtab, s...)
		return [2]uint32{off, uint32(len(s))}
	}
	le := binary.LittleEndian
	h := make([]byte, headerSize)
	le.PutUint32(h[0:], version)
	put := func(at int, v [2]uint32) { le.PutUint32(h[at:], v[0]); le.PutUint32(h[at+4:], v[1]) }
	put(4, str("22.1.8"))
	put(44, str("x86_64-pc-linux-gnu"))
	put(52, str("t.c"))
	put(60, str(""))
	body := h
	modOff := len(body)
	for i := range modules {
		end := uint32(0)
		if i == modules-1 {
			end = uint32(len(syms))
		}
		body = le.AppendUint32(le.AppendUint32(le.AppendUint32(body, 0), end), 0)
	}
	put(12, [2]uint32{uint32(modOff), uint32(modules)})
	put(20, [2]uint32{uint32(len(body)), 0}) // comdats
	put(28, [2]uint32{uint32(len(body)), uint32(len(syms))})
	for _, s := range syms {
		n, ir := str(s.name), str(s.irName)
		body = le.AppendUint32(le.AppendUint32(body, n[0]), n[1])
		body = le.AppendUint32(le.AppendUint32(body, ir[0]), ir[1])
		body = le.AppendUint32(le.AppendUint32(body, 0xffffffff), uint32(s.flags))
	}
	put(36, [2]uint32{uint32(len(body)), 0}) // uncommons
	put(68, [2]uint32{uint32(len(body)), 0}) // dependent libraries
	copy(body, h)
	return body, strtab
}
