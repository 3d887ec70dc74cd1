// Package hostile builds the crafted inputs of the robustness tests:
// decompression bombs in each compressed format, nested compression, deep
// nesting, COFF objects of any sections (damaged ones included), and ELF
// objects and ar archives of names shared by many headers. Each is made
// from the formats' documented layouts, not by our writers, so a writer
// bug cannot hide a reader bug.
//
// Sizes: zstd RLE blocks regenerate up to 128 KiB from 4 bytes, so 1 GiB of
// zeros costs 32 KiB of input, as an attacker's file would.
//
// It is for tests only; nothing outside *_test.go files imports it.
package hostile

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

var le = binary.LittleEndian

// maxBlock is zstd's largest block (Block_Maximum_Size, RFC 8878 3.1.1.2.3).
const maxBlock = 128 << 10

// ZstdFrame returns one zstd frame (RFC 8878) that decodes to raw followed
// by zeros zero bytes: raw in Raw blocks, the zeros in RLE blocks. The frame
// declares a 128 KiB window and no content size or checksum.
func ZstdFrame(raw []byte, zeros int64) []byte {
	b := le.AppendUint32(nil, 0xFD2FB528)
	b = append(b, 0x00) // Frame_Header_Descriptor: no FCS, not single-segment
	b = append(b, 7<<3) // Window_Descriptor: 2^(10+7) = 128 KiB
	type block struct {
		typ  uint32 // 0 Raw, 1 RLE
		size int
	}
	var blocks []block
	for rest := len(raw); rest > 0; rest -= min(rest, maxBlock) {
		blocks = append(blocks, block{0, min(rest, maxBlock)})
	}
	for rest := zeros; rest > 0; rest -= min(rest, maxBlock) {
		blocks = append(blocks, block{1, int(min(rest, maxBlock))})
	}
	if len(blocks) == 0 {
		blocks = append(blocks, block{0, 0})
	}
	for i, bl := range blocks {
		last := uint32(0)
		if i == len(blocks)-1 {
			last = 1
		}
		h := last | bl.typ<<1 | uint32(bl.size)<<3
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
		if bl.typ == 0 {
			b = append(b, raw[:bl.size]...)
			raw = raw[bl.size:]
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// CCOB returns a version 3 compressed bundle (clang-offload-bundler's
// CompressedOffloadBundle: "CCOB", version, method, total size, uncompressed
// size, truncated MD5) whose zstd payload decodes to raw followed by zeros
// zero bytes. The hash (the first 8 bytes of the MD5, little-endian) is
// right when zeros is 0, 256 MiB or 1 GiB, so that readers which check it
// decode the whole bomb; for other sizes it is 0 and fails the check, but
// only after decompression.
func CCOB(raw []byte, zeros int64) []byte {
	return makeCCOB(1, ZstdFrame(raw, zeros), uint64(len(raw))+uint64(zeros), hashOf(raw, zeros))
}

// CCOBZlib is CCOB with its content deflated (zlib), so that the bytes of
// content do not appear in it verbatim, as they would in zstd Raw blocks.
func CCOBZlib(content []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(content)
	w.Close()
	return makeCCOB(0, z.Bytes(), uint64(len(content)), hashOf(content, 0))
}

func makeCCOB(method uint16, payload []byte, size, hash uint64) []byte {
	b := []byte("CCOB")
	b = le.AppendUint16(b, 3) // version
	b = le.AppendUint16(b, method)
	b = le.AppendUint64(b, uint64(32+len(payload)))
	b = le.AppendUint64(b, size)
	b = le.AppendUint64(b, hash)
	return append(b, payload...)
}

// zeroMD5 holds the MD5 of runs of zeros, from
// `head -c N /dev/zero | md5sum` (GNU coreutils).
var zeroMD5 = map[int64]string{
	256 << 20: "1f5039e50bd66b290c56684d8550c6c2",
	1 << 30:   "cd573cfaace07e7949bc0c46028904ff",
}

func hashOf(raw []byte, zeros int64) uint64 {
	var sum []byte
	switch {
	case zeros == 0:
		s := md5.Sum(raw)
		sum = s[:]
	case len(raw) == 0 && zeroMD5[zeros] != "":
		sum, _ = hex.DecodeString(zeroMD5[zeros])
	default:
		return 0
	}
	return le.Uint64(sum[:8])
}

// OffloadBinaryBomb returns a version 3 OffloadBinary (magic 0x10FF10AD)
// whose zstd-compressed body inflates to one entry of an HIP image of
// imageSize zero bytes, with triple and arch strings: 40 bytes of header,
// then, compressed, a 40-byte entry, two 24-byte string entries, the
// string table, padding to 8 and the image.
func OffloadBinaryBomb(imageSize int64, arch string) []byte {
	const hdr, entry, strEntry = 40, 40, 24
	table := []byte("\x00triple\x00amdgcn-amd-amdhsa\x00arch\x00" + arch + "\x00")
	tabOff := int64(hdr + entry + 2*strEntry)
	dataOff := (tabOff + int64(len(table)) + 7) &^ 7
	meta := make([]byte, dataOff-hdr)
	e := meta[0:]
	le.PutUint16(e[0:], 1)                  // ImageKind: IMG_Object
	le.PutUint16(e[2:], 4)                  // OffloadKind: OFK_HIP (1 << 2)
	le.PutUint64(e[8:], uint64(hdr+entry))  // string entries
	le.PutUint64(e[16:], 2)                 // number of strings
	le.PutUint64(e[24:], uint64(dataOff))   // image offset
	le.PutUint64(e[32:], uint64(imageSize)) // image size
	s := meta[entry:]
	str := func(i int, key, val string) {
		k := bytes.Index(table, []byte("\x00"+key+"\x00")) + 1
		v := bytes.Index(table[k+len(key):], []byte(val+"\x00")) + k + len(key)
		le.PutUint64(s[i*strEntry:], uint64(tabOff)+uint64(k))
		le.PutUint64(s[i*strEntry+8:], uint64(tabOff)+uint64(v))
		le.PutUint64(s[i*strEntry+16:], uint64(len(val)))
	}
	str(0, "triple", "amdgcn-amd-amdhsa")
	str(1, "arch", arch)
	copy(meta[tabOff-hdr:], table)
	inflated := dataOff + imageSize
	if pad := inflated % 8; pad != 0 {
		inflated += 8 - pad
	}
	frame := ZstdFrame(meta, inflated-dataOff)
	b := []byte{0x10, 0xFF, 0x10, 0xAD}
	b = le.AppendUint32(b, 3)
	b = le.AppendUint64(b, uint64(hdr+len(frame)))
	b = le.AppendUint64(b, hdr) // entries offset
	b = le.AppendUint64(b, 1)   // entries count
	b = le.AppendUint64(b, uint64(inflated))
	b = append(b, frame...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// TextBundle returns a text bundle (// comments) holding one entry per id.
func TextBundle(ids []string, payloads [][]byte) []byte {
	var b bytes.Buffer
	for i, id := range ids {
		fmt.Fprintf(&b, "\n// __CLANG_OFFLOAD_BUNDLE____START__ %s\n", id)
		b.Write(payloads[i])
		fmt.Fprintf(&b, "\n// __CLANG_OFFLOAD_BUNDLE____END__ %s\n", id)
	}
	return b.Bytes()
}

// TextChain returns a text bundle whose HIP entry is a CCOB holding a text
// bundle whose HIP entry is a CCOB ... levels deep (each CCOB and each text
// bundle is one level).
func TextChain(levels int) []byte {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}
	inner := []byte("device code")
	for i := 0; i < levels; i++ {
		inner = TextBundle(ids, [][]byte{nil, CCOBZlib(inner)})
	}
	return inner
}

// BundleEntry is one entry of a binary bundle made by Bundle: its ID and
// where its payload is, from the start of the bundle.
type BundleEntry struct {
	ID           string
	Offset, Size uint64
}

// BundleHeaderSize is the size of the header of a binary bundle with
// these entry IDs: magic, count, and per entry offset, size, ID length and
// ID (clang-offload-bundler's layout); payloads may start there.
func BundleHeaderSize(ids []string) uint64 {
	n := uint64(24 + 8)
	for _, id := range ids {
		n += 24 + uint64(len(id))
	}
	return n
}

// Bundle returns a binary bundle header for entries, followed by tail;
// entries may point anywhere, at the same bytes or overlapping ones.
func Bundle(entries []BundleEntry, tail []byte) []byte {
	b := []byte("__CLANG_OFFLOAD_BUNDLE__")
	b = le.AppendUint64(b, uint64(len(entries)))
	for _, e := range entries {
		b = le.AppendUint64(b, e.Offset)
		b = le.AppendUint64(b, e.Size)
		b = le.AppendUint64(b, uint64(len(e.ID)))
		b = append(b, e.ID...)
	}
	return append(b, tail...)
}

// SharedBundle returns a bundle of fanout entries that all point at one
// nested bundle, whose fanout entries all point at one nested bundle, ...
// levels deep; the innermost entries all point at leaf. Walking every
// entry visits fanout^levels leaves; the file is a few hundred bytes a
// level.
func SharedBundle(fanout, levels int, leaf []byte) []byte {
	inner := leaf
	for l := 0; l < levels; l++ {
		ids := make([]string, fanout)
		for i := range ids {
			ids[i] = fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx%d", 900+i)
			if l > 0 {
				ids[i] = fmt.Sprintf("openmp-x86_64-unknown-linux-gnu-l%d-%d", l, i)
			}
		}
		off := BundleHeaderSize(ids)
		es := make([]BundleEntry, fanout)
		for i, id := range ids {
			es[i] = BundleEntry{ID: id, Offset: off, Size: uint64(len(inner))}
		}
		inner = Bundle(es, inner)
	}
	return inner
}

// BundleHeader returns the header of a binary bundle (clang-offload-
// bundler's layout: the magic, the entry count, then per entry its
// offset, size, ID length and ID, all little-endian u64) whose entries,
// of the given sizes, follow the header back to back.
func BundleHeader(ids []string, sizes []int64) []byte {
	b := []byte("__CLANG_OFFLOAD_BUNDLE__")
	b = le.AppendUint64(b, uint64(len(ids)))
	off := int64(len(b))
	for _, id := range ids {
		off += 24 + int64(len(id))
	}
	for i, id := range ids {
		b = le.AppendUint64(b, uint64(off))
		b = le.AppendUint64(b, uint64(sizes[i]))
		b = le.AppendUint64(b, uint64(len(id)))
		b = append(b, id...)
		off += sizes[i]
	}
	return b
}

// CCOBHashed is CCOB with its hash computed whatever zeros is (an MD5 of
// that many zeros, so keep it to tens of MiB): a record that every
// reader accepts whole, hash compared.
func CCOBHashed(raw []byte, zeros int64) []byte {
	h := md5.New()
	h.Write(raw)
	chunk := make([]byte, 1<<20)
	for rest := zeros; rest > 0; rest -= min(rest, int64(len(chunk))) {
		h.Write(chunk[:min(rest, int64(len(chunk)))])
	}
	return makeCCOB(1, ZstdFrame(raw, zeros), uint64(len(raw))+uint64(zeros), le.Uint64(h.Sum(nil)[:8]))
}

// PaddedChain returns levels CCOBs, each holding the next followed by pad
// zero bytes (zero padding after a record, as LLVM pads records in
// .hip_fatbin sections), the innermost holding inner. A reader that looks
// at a bounded prefix of each payload first finds the padding running
// past it at every level.
func PaddedChain(levels int, pad int64, inner []byte) []byte {
	for range levels {
		inner = CCOBHashed(inner, pad)
	}
	return inner
}
