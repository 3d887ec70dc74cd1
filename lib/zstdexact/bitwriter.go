package zstdexact

// bitWriter writes a ZSTD/FSE/Huffman bit stream: values go in from the
// least significant bit up, and close adds the 1 bit that marks its end.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) add(v uint64, n uint) {
	if n == 0 {
		return
	}
	v &= 1<<n - 1
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// addWide adds up to 64 bits.
func (w *bitWriter) addWide(v uint64, n uint) {
	if n > 32 {
		w.add(v, 32)
		v >>= 32
		n -= 32
	}
	w.add(v, n)
}

func (w *bitWriter) close() []byte {
	w.add(1, 1)
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nbits = 0, 0
	}
	return w.out
}
