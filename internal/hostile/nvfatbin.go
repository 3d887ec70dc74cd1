package hostile

// NVEntry is an entry of NVFatbin.
type NVEntry struct {
	Kind   uint16 // 1 PTX, 2 ELF (cubin)
	Arch   uint32 // the sm_XX number
	Header int    // header size: 72 or more, a multiple of 8
	// LongStrings points the identifier and the ptxas options both at all
	// of the header past its 72nd byte, so a reader that copies them
	// copies the header twice.
	LongStrings bool
	Payload     []byte
	// Inflated, when not 0, marks Payload as one LZ4 block that inflates
	// to Inflated bytes (fatbinary's compression, flag 0x2000), or one
	// ZSTD frame when Zstd (CUDA 13's, flag 0x8000).
	Inflated int
	Zstd     bool
	// Stored, when not 0, is the compressed size the header declares in
	// place of the payload's.
	Stored int
	// Accelerated sets the flag of an architecture-specific target
	// (0x100000, sm_90a), whatever Arch is.
	Accelerated bool
}

// NVFatbin returns an NVIDIA fat binary container of the entries, laid
// out as docs/nvfatbin.md and lib/nvfatbin's package comment describe it
// (read off CUDA 11.8's fatbinary): a 16-byte header (magic 0xBA55ED50,
// version 1, header size 16, size of the entries), then each entry's
// header (kind, 0x0101, header size, padded payload size, compressed
// size, options pointer, code version, arch, identifier, flags,
// uncompressed size) and its payload padded to 8.
func NVFatbin(entries []NVEntry) []byte {
	b := le.AppendUint32(nil, 0xBA55ED50)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 16)
	b = le.AppendUint64(b, 0) // size of the entries, set below
	for _, e := range entries {
		padded := (len(e.Payload) + 7) &^ 7
		h := make([]byte, e.Header)
		le.PutUint16(h[0:], e.Kind)
		le.PutUint16(h[2:], 0x0101)
		le.PutUint32(h[4:], uint32(e.Header))
		le.PutUint64(h[8:], uint64(padded))
		le.PutUint16(h[24:], 0) // minor
		le.PutUint16(h[26:], 8) // major
		le.PutUint32(h[28:], e.Arch)
		flags := uint64(0x11) // 64-bit, Linux
		if e.Inflated != 0 {
			flags |= 0x2000
			if e.Zstd {
				flags ^= 0x2000 | 0x8000
			}
			stored := len(e.Payload)
			if e.Stored != 0 {
				stored = e.Stored
			}
			le.PutUint32(h[16:], uint32(stored))
			le.PutUint64(h[56:], uint64(e.Inflated))
		}
		if e.Accelerated {
			flags |= 0x100000
		}
		le.PutUint64(h[40:], flags)
		if e.LongStrings {
			for i := 72; i < e.Header; i++ {
				h[i] = 'x'
			}
			le.PutUint32(h[20:], 64) // the options' offset and length are at 64
			le.PutUint32(h[64:], 72)
			le.PutUint32(h[68:], uint32(e.Header-72))
			le.PutUint32(h[32:], 72) // the identifier
			le.PutUint32(h[36:], uint32(e.Header-72))
		}
		b = append(append(b, h...), e.Payload...)
		b = append(b, make([]byte, padded-len(e.Payload))...)
	}
	le.PutUint64(b[8:], uint64(len(b)-16))
	return b
}

// LZ4Literals returns one LZ4 block (the block format, no frame) that
// holds lit, shorter than 15 bytes, as literals: it inflates to lit.
func LZ4Literals(lit []byte) []byte {
	return append([]byte{byte(len(lit)) << 4}, lit...)
}
