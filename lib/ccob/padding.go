package ccob

import "io"

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
