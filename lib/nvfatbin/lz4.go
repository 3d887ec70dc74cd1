package nvfatbin

// NVIDIA compresses fat binary entries as one LZ4 block (the block format,
// no frame): `lz4 -d` of the bytes wrapped in a frame gives what
// `cuobjdump -xelf` writes. CUDA 11.8's fatbinary makes that block with
// LZ4's high-compression hash-chain search at two attempts per position
// (LZ4_compress_HC at level 1 or 2 of LZ4 1.9): liblz4 1.9.4 at those
// levels gives its bytes exactly. compressHC is that search, written from
// the algorithm LZ4 documents, so that our fat binaries equal fatbinary's.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

const (
	minMatch     = 4
	lastLiterals = 5  // the last 5 bytes are always literals
	mfLimit      = 12 // no match starts in the last 12 bytes
	mlBits       = 4
	mlMask       = 1<<mlBits - 1
	runMask      = 1<<(8-mlBits) - 1
	maxDistance  = 65535
	optimalML    = mlMask - 1 + minMatch
	hashLog      = 15
	hcAttempts   = 2
	// maxCompressInput is LZ4's limit on one block's input.
	maxCompressInput = 0x7E000000
)

// DecompressError says why an LZ4 block did not decode.
type DecompressError struct {
	Off int // in the compressed bytes
	Msg string
}

func (e *DecompressError) Error() string {
	return fmt.Sprintf("nvfatbin: LZ4 block: %s at offset %d", e.Msg, e.Off)
}

func (e *DecompressError) Unwrap() error { return ErrFormat }

// Decompress decodes the LZ4 block src, which must inflate to exactly size
// bytes. The output is allocated once, of size bytes: callers bound size
// before calling (or use DecompressTo).
func Decompress(src []byte, size int) ([]byte, error) {
	if size < 0 {
		return nil, &DecompressError{0, fmt.Sprintf("negative size %d", size)}
	}
	var b bytes.Buffer
	b.Grow(size)
	if err := DecompressTo(&b, src, int64(size)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// window is what DecompressTo keeps of the output: a match reaches at
// most 65535 bytes back. flushAt is how much it holds before writing.
const (
	window  = 1 << 16
	flushAt = 1<<20 + window
)

// DecompressTo decodes the LZ4 block src, which must inflate to exactly
// size bytes, into w. It holds at most about 1 MiB of output, so memory
// stays flat whatever size is declared.
func DecompressTo(w io.Writer, src []byte, size int64) error {
	return decompressTo(w, src, size, flushAt)
}

// decompressTo is DecompressTo writing out whenever it holds flush bytes
// (at least window): tests flush often to reach that path with small data.
func decompressTo(w io.Writer, src []byte, size int64, flush int) error {
	flush = max(flush, window)
	// buf never holds more than the output, nor more than flush bytes and
	// a window's worth: a small entry gets a small buffer.
	d := &decoder{w: w, size: size, flushAt: flush, buf: make([]byte, 0, max(0, min(size, int64(flush)+window)))}
	if err := d.run(src); err != nil {
		return err
	}
	if d.total() != size {
		return &DecompressError{len(src), fmt.Sprintf("inflated to %d bytes, %d declared", d.total(), size)}
	}
	return d.flush(0)
}

// decoder writes its output to w as it goes, but for the last window.
type decoder struct {
	w       io.Writer
	size    int64
	buf     []byte // output not yet written, and the window before it
	written int64  // output written to w and dropped from buf
	flushAt int    // len(buf) from which buf is written out, but its window
}

func (d *decoder) total() int64 { return d.written + int64(len(d.buf)) }

// flush writes all of buf to w but its last keep bytes.
func (d *decoder) flush(keep int) error {
	n := len(d.buf) - keep
	if n <= 0 {
		return nil
	}
	if _, err := d.w.Write(d.buf[:n]); err != nil {
		return err
	}
	d.written += int64(n)
	d.buf = d.buf[:copy(d.buf, d.buf[n:])]
	return nil
}

func (d *decoder) run(src []byte) error {
	i := 0
	for i < len(src) {
		if err := d.room(); err != nil {
			return err
		}
		token := src[i]
		i++
		lit, n, err := readLength(src, i, int(token>>mlBits))
		if err != nil {
			return err
		}
		i = n
		if lit > len(src)-i || int64(lit) > d.size-d.total() {
			return &DecompressError{i, fmt.Sprintf("%d literals run past the input or the declared size", lit)}
		}
		if err := d.literals(src[i : i+lit]); err != nil {
			return err
		}
		i += lit
		if i == len(src) {
			break // the last sequence has literals only
		}
		if len(src)-i < 2 {
			return &DecompressError{i, "truncated match offset"}
		}
		off := int(binary.LittleEndian.Uint16(src[i:]))
		i += 2
		ml, n, err := readLength(src, i, int(token&mlMask))
		if err != nil {
			return err
		}
		i = n
		ml += minMatch
		switch {
		case off == 0 || off > len(d.buf):
			return &DecompressError{i, fmt.Sprintf("match offset %d outside the %d bytes decoded", off, d.total())}
		case int64(ml) > d.size-d.total():
			return &DecompressError{i, "match runs past the declared size"}
		}
		if err := d.match(off, ml); err != nil {
			return err
		}
	}
	return nil
}

// room writes out what lies before the window once buf holds flushAt.
func (d *decoder) room() error {
	if len(d.buf) >= d.flushAt {
		return d.flush(window)
	}
	return nil
}

// literals appends lit, a window at a time so that buf stays small.
func (d *decoder) literals(lit []byte) error {
	for len(lit) > 0 {
		if err := d.room(); err != nil {
			return err
		}
		n := min(len(lit), window)
		d.buf = append(d.buf, lit[:n]...)
		lit = lit[n:]
	}
	return nil
}

// match appends ml bytes copied from off bytes back, a window at a time:
// a run of zeros declared as gigabytes takes no more memory than any.
func (d *decoder) match(off, ml int) error {
	for ml > 0 {
		if err := d.room(); err != nil {
			return err
		}
		n := min(ml, window)
		from := len(d.buf) - off
		if off >= n {
			d.buf = append(d.buf, d.buf[from:from+n]...)
		} else { // the match overlaps the bytes it produces: byte by byte
			for k := 0; k < n; k++ {
				d.buf = append(d.buf, d.buf[from+k])
			}
		}
		ml -= n
	}
	return nil
}

// readLength reads the extension bytes of a 4-bit length that is 15.
func readLength(src []byte, i, n int) (int, int, error) {
	if n != 15 {
		return n, i, nil
	}
	for {
		if i >= len(src) {
			return 0, i, &DecompressError{i, "truncated length"}
		}
		b := src[i]
		i++
		n += int(b)
		if n > 1<<31 {
			return 0, i, &DecompressError{i, "length overflows"}
		}
		if b != 255 {
			return n, i, nil
		}
	}
}

// hcState is the match finder: for each position, the last one with the
// same 4-byte hash (head) and the distance back to the previous one
// (chain), as LZ4 HC keeps them. Positions are offsets in src.
type hcState struct {
	src      []byte
	head     []int32 // hash -> last position + 1 (0: none)
	chain    []uint16
	inserted int // positions below this are in the tables
}

func hash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> (32 - hashLog)
}

// insert adds the positions up to p (excluded) to the tables.
func (s *hcState) insert(p int) {
	for ; s.inserted < p; s.inserted++ {
		h := hash4(s.src[s.inserted:])
		delta := maxDistance
		if last := int(s.head[h]) - 1; last >= 0 && s.inserted-last < maxDistance {
			delta = s.inserted - last
		}
		s.chain[s.inserted&0xFFFF] = uint16(delta)
		s.head[h] = int32(s.inserted + 1)
	}
}

// widerMatch looks for a match at ip longer than longest, which may start
// earlier, down to low, and may run up to high. It returns the length, the
// match position and the start; longest and no positions when none is
// longer.
func (s *hcState) widerMatch(ip, low, high, longest int) (int, int, int) {
	src := s.src
	matchPos, start := -1, -1
	lowest := 0
	if ip > maxDistance {
		lowest = ip - maxDistance
	}
	s.insert(ip)
	pattern := binary.LittleEndian.Uint32(src[ip:])
	lookBack := ip - low
	m := int(s.head[hash4(src[ip:])]) - 1
	for attempts := hcAttempts; m >= lowest && attempts > 0; attempts-- {
		// A cheap test first: the two bytes that would make this match
		// longer than the best so far.
		if binary.LittleEndian.Uint16(src[low+longest-1:]) == binary.LittleEndian.Uint16(src[m-lookBack+longest-1:]) &&
			binary.LittleEndian.Uint32(src[m:]) == pattern {
			back := 0
			for lookBack > 0 && ip+back > low && m+back > 0 && src[ip+back-1] == src[m+back-1] {
				back--
			}
			n := minMatch + count(src, ip+minMatch, m+minMatch, high) - back
			if n > longest {
				longest, matchPos, start = n, m+back, ip+back
			}
		}
		d := int(s.chain[m&0xFFFF])
		if d > m {
			break
		}
		m -= d
	}
	return longest, matchPos, start
}

// count is the number of equal bytes at a and b, with a stopping at limit.
func count(src []byte, a, b, limit int) int {
	n := 0
	for a+n < limit && src[a+n] == src[b+n] {
		n++
	}
	return n
}

// encoder writes LZ4 sequences.
type encoder struct {
	dst    []byte
	anchor int // first byte not yet written
}

func (e *encoder) length(n int) {
	for ; n >= 255; n -= 255 {
		e.dst = append(e.dst, 255)
	}
	e.dst = append(e.dst, byte(n))
}

// sequence writes the literals before ip and a match of ml bytes at
// distance ip-match, and returns the position after the match.
func (e *encoder) sequence(src []byte, ip, ml, match int) int {
	lit := ip - e.anchor
	tok := len(e.dst)
	e.dst = append(e.dst, 0)
	if lit >= runMask {
		e.dst[tok] = runMask << mlBits
		e.length(lit - runMask)
	} else {
		e.dst[tok] = byte(lit << mlBits)
	}
	e.dst = append(e.dst, src[e.anchor:ip]...)
	e.dst = binary.LittleEndian.AppendUint16(e.dst, uint16(ip-match))
	if n := ml - minMatch; n >= mlMask {
		e.dst[tok] += mlMask
		e.length(n - mlMask)
	} else {
		e.dst[tok] += byte(n)
	}
	e.anchor = ip + ml
	return e.anchor
}

func (e *encoder) last(src []byte) {
	lit := len(src) - e.anchor
	if lit >= runMask {
		e.dst = append(e.dst, runMask<<mlBits)
		e.length(lit - runMask)
	} else {
		e.dst = append(e.dst, byte(lit<<mlBits))
	}
	e.dst = append(e.dst, src[e.anchor:]...)
}

// Compress returns src as one LZ4 block, the bytes CUDA 11.8's fatbinary
// stores for it. Inputs over LZ4's block limit (about 2 GiB) are refused.
func Compress(src []byte) ([]byte, error) {
	if len(src) > maxCompressInput {
		return nil, fmt.Errorf("nvfatbin: %d bytes is over LZ4's block limit of %d", len(src), maxCompressInput)
	}
	e := &encoder{dst: make([]byte, 0, len(src)/2+16)}
	if len(src) >= mfLimit+1 {
		s := &hcState{src: src, head: make([]int32, 1<<hashLog), chain: make([]uint16, 1<<16)}
		compressHC(s, e)
	}
	e.last(src)
	return e.dst, nil
}

// compressHC is LZ4 HC's lazy parse: having a match (ip, ref, ml), look
// for a longer one starting inside it (2), and one inside that (3), and
// decide how much of each to keep.
func compressHC(s *hcState, e *encoder) {
	src := s.src
	mflimit := len(src) - mfLimit
	matchLimit := len(src) - lastLiterals
	ip := 0
	for ip <= mflimit {
		ml, ref, _ := s.widerMatch(ip, ip, matchLimit, minMatch-1)
		if ml < minMatch {
			ip++
			continue
		}
		start0, ref0, ml0 := ip, ref, ml
		var ml2, ref2, start2, ml3, ref3, start3 int
	search2:
		if ip+ml <= mflimit {
			ml2, ref2, start2 = s.widerMatch(ip+ml-2, ip, matchLimit, ml)
		} else {
			ml2 = ml
		}
		if ml2 == ml { // no better match: write the first
			ip = e.sequence(src, ip, ml, ref)
			continue
		}
		if start0 < ip && start2 < ip+ml0 { // squeezing went too far: restore the first match
			ip, ref, ml = start0, ref0, ml0
		}
		if start2-ip < 3 { // the first match is too short to keep
			ip, ref, ml = start2, ref2, ml2
			goto search2
		}
	search3:
		if start2-ip < optimalML {
			newML := min(ml, optimalML)
			if ip+newML > start2+ml2-minMatch {
				newML = start2 - ip + ml2 - minMatch
			}
			if c := newML - (start2 - ip); c > 0 {
				start2, ref2, ml2 = start2+c, ref2+c, ml2-c
			}
		}
		if start2+ml2 <= mflimit {
			ml3, ref3, start3 = s.widerMatch(start2+ml2-3, start2, matchLimit, ml2)
		} else {
			ml3 = ml2
		}
		if ml3 == ml2 { // no better match: write the first two
			if start2 < ip+ml {
				ml = start2 - ip
			}
			e.sequence(src, ip, ml, ref)
			ip = e.sequence(src, start2, ml2, ref2)
			continue
		}
		if start3 < ip+ml+3 { // no room for match 2
			if start3 >= ip+ml { // write 1; 3 becomes 1
				if start2 < ip+ml {
					c := ip + ml - start2
					start2, ref2, ml2 = start2+c, ref2+c, ml2-c
					if ml2 < minMatch {
						start2, ref2, ml2 = start3, ref3, ml3
					}
				}
				e.sequence(src, ip, ml, ref)
				ip, ref, ml = start3, ref3, ml3
				start0, ref0, ml0 = start2, ref2, ml2
				goto search2
			}
			start2, ref2, ml2 = start3, ref3, ml3
			goto search3
		}
		// Three ascending matches: write the first, shortened to end where
		// the second starts.
		if start2 < ip+ml {
			if start2-ip < optimalML {
				ml = min(ml, optimalML)
				if ip+ml > start2+ml2-minMatch {
					ml = start2 - ip + ml2 - minMatch
				}
				if c := ml - (start2 - ip); c > 0 {
					start2, ref2, ml2 = start2+c, ref2+c, ml2-c
				}
			} else {
				ml = start2 - ip
			}
		}
		e.sequence(src, ip, ml, ref)
		ip, ref, ml = start2, ref2, ml2
		start2, ref2, ml2 = start3, ref3, ml3
		goto search3
	}
}
