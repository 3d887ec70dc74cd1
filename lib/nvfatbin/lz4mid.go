package nvfatbin

// CUDA 13's fatbinary under --compress-mode=speed stores entries as LZ4
// blocks again, but made by LZ4 1.10's "mid" compressor (LZ4_compress_HC
// at level 1 or 2 since LZ4 1.10 took those levels from the hash-chain
// search): two hash tables, of the last position of each 4-byte and each
// 8-byte hash, tried long first, one match per position, no chains.
// compressMid is that algorithm, written from LZ4's description and
// checked against liblz4 1.10 (docs/nvfatbin.md), so that our bytes equal
// fatbinary's.

import "encoding/binary"

const (
	midHashLog  = hashLog - 1
	midHashSize = 8 // the long hash reads 8 bytes
	// midBase is the index of src[0]: LZ4 numbers positions from 64 KiB,
	// so that an empty slot (0) lies beyond the longest distance.
	midBase = 1 << 16
)

func midHash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> (32 - midHashLog)
}

// midHash8 hashes the low 7 bytes of the 8 at b.
func midHash8(b []byte) uint32 {
	return uint32(((binary.LittleEndian.Uint64(b) << 8) * 58295818150454627) >> (64 - midHashLog))
}

// CompressMid returns src as one LZ4 block as LZ4 1.10 compresses it at
// level 2, the bytes CUDA 13's fatbinary stores under
// --compress-mode=speed. Inputs over LZ4's block limit are refused.
func CompressMid(src []byte) ([]byte, error) {
	if len(src) > maxCompressInput {
		return nil, &ImageError{"LZ4", "input over LZ4's block limit"}
	}
	e := &encoder{dst: make([]byte, 0, len(src)/2+16)}
	if len(src) >= mfLimit+1 {
		compressMid(src, e)
	}
	e.last(src)
	return e.dst, nil
}

func compressMid(src []byte, e *encoder) {
	h4 := make([]uint32, 1<<midHashLog)
	h8 := make([]uint32, 1<<midHashLog)
	add4 := func(p int, idx uint32) { h4[midHash4(src[p:])] = idx }
	add8 := func(p int, idx uint32) { h8[midHash8(src[p:])] = idx }
	mflimit := len(src) - mfLimit
	matchLimit := len(src) - lastLiterals
	ilimitIdx := uint32(len(src) - midHashSize + midBase)
	for ip := 0; ip <= mflimit; {
		// ipIndex stays the index of the position searched, even where
		// the match found moves ip (LZ4 fills its tables with it so).
		ipIndex := uint32(ip + midBase)
		ml, dist := 0, 0
		// A long match first: an 8-byte hash.
		h := midHash8(src[ip:])
		if p := h8[h]; ipIndex-p <= maxDistance && p >= midBase {
			if n := count(src, ip, int(p-midBase), matchLimit); n >= minMatch {
				ml, dist = n, int(ipIndex-p)
			}
		}
		h8[h] = ipIndex
		if ml == 0 { // a short one, then whether a long one at ip+1 is longer
			h := midHash4(src[ip:])
			p := h4[h]
			h4[h] = ipIndex
			if ipIndex-p <= maxDistance && p >= midBase {
				if n := count(src, ip, int(p-midBase), matchLimit); n >= minMatch {
					ml, dist = n, int(ipIndex-p)
					h1 := midHash8(src[ip+1:])
					p1 := h8[h1]
					if d1 := ipIndex + 1 - p1; d1 <= maxDistance && p1 >= midBase && ip < mflimit {
						if n1 := count(src, ip+1, int(p1-midBase), matchLimit); n1 > ml {
							h8[h1] = ipIndex + 1
							ip++
							ml, dist = n1, int(d1)
						}
					}
				}
			}
		}
		if ml == 0 {
			ip += 1 + (ip-e.anchor)>>9 // faster over incompressible data
			continue
		}
		for ip > e.anchor && ip > dist && src[ip-1] == src[ip-dist-1] { // extend backwards
			ip--
			ml++
		}
		add8(ip+1, ipIndex+1)
		add8(ip+2, ipIndex+2)
		add4(ip+1, ipIndex+1)
		ip = e.sequence(src, ip, ml, ip-dist)
		if end := uint32(ip + midBase); end-2 < ilimitIdx {
			if ip > 5 {
				add8(ip-5, end-5)
			}
			add8(ip-3, end-3)
			add8(ip-2, end-2)
			add4(ip-2, end-2)
			add4(ip-1, end-1)
		}
	}
}
