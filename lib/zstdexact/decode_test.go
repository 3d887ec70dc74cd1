package zstdexact

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/zstd"
)

// decode inflates a frame with klauspost's decoder, to at most n+1 bytes.
func decode(frame []byte, n int) ([]byte, error) {
	d, err := zstd.NewReader(bytes.NewReader(frame), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return io.ReadAll(io.LimitReader(d, int64(n)+1))
}
