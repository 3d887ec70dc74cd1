package ccob

import (
	"io"
	"math"
)

// SkipPadding returns the offset of the first non-zero byte at or after off
// in the size bytes of r, or size when only zeros follow. Compressed bundles
// stored back to back (as in a .hip_fatbin section) may be separated by zero
// padding; the next one starts where this returns.
func SkipPadding(r io.ReaderAt, off, size int64) (int64, error) {
	buf := make([]byte, 32<<10)
	for off < size {
		n := min(int64(len(buf)), size-off)
		k, err := r.ReadAt(buf[:n], off)
		for i, b := range buf[:k] {
			if b != 0 {
				return off + int64(i), nil
			}
		}
		if k == 0 && err != nil {
			return off, err
		}
		off += int64(k)
	}
	return size, nil
}

// DeclaredSize adds up the uncompressed sizes that the CCOBs stored back to
// back in the size bytes of r declare, reading headers only, so that a
// caller can refuse a sequence whose records together exceed its budget
// before decoding any. It stops at the first header it cannot read, and at
// a version 1 record (which runs to the end of its input).
func DeclaredSize(r io.ReaderAt, size int64) uint64 {
	var sum uint64
	for off := int64(0); off < size; {
		h, err := readHeader(io.NewSectionReader(r, off, size-off), size-off)
		if err != nil {
			break
		}
		if h.UncompressedSize > math.MaxUint64/2-sum {
			return math.MaxUint64 / 2 // more than any budget; no wrap-around
		}
		sum += h.UncompressedSize
		if h.Version == 1 || h.TotalSize < uint64(h.HeaderSize) || h.TotalSize > uint64(size-off) {
			break
		}
		if off, err = SkipPadding(r, off+int64(h.TotalSize), size); err != nil {
			break
		}
	}
	return sum
}
