package offloadbin

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/strtab"
)

// ErrNUL is returned by Write for a key or value containing a NUL byte, which
// version 1 cannot represent.
var ErrNUL = errors.New("offloadbin: string contains NUL")

// Write writes one version 1 OffloadBinary holding one image, byte-identical
// to LLVM 22's OffloadBinary::write for the same entry:
//
//	header | entry | string entries | string table | pad to 8 | image | pad to 8
//
// The string table is built like LLVM's StringTableBuilder(ELF): a leading
// NUL, duplicates removed, strings ordered by their reversed bytes
// (descending) so that a string that is a suffix of the one before it shares
// its tail. strings are written in the given order. Exactly imageSize bytes
// are copied from image; a shorter image is an error. Write returns the number
// of bytes written, which is the binary's Size.
func Write(w io.Writer, kind ImageKind, okind OffloadKind, flags uint32, strings []KV, image io.Reader, imageSize int64) (int64, error) {
	if imageSize < 0 {
		return 0, fmt.Errorf("offloadbin: negative image size %d", imageSize)
	}
	all := make([]string, 0, 2*len(strings))
	for _, kv := range strings {
		if hasNUL(kv.Key) || hasNUL(kv.Value) {
			return 0, fmt.Errorf("%w: %q=%q", ErrNUL, kv.Key, kv.Value)
		}
		all = append(all, kv.Key, kv.Value)
	}
	table, offsets := strtab.Build(all)

	strOff := int64(headerSize + entrySize)
	tabOff := strOff + int64(len(strings))*stringEntrySizeV1
	imgOff := alignUp(tabOff+int64(len(table)), Alignment)
	size := alignUp(imgOff+imageSize, Alignment)

	meta := make([]byte, imgOff)
	copy(meta, Magic)
	le.PutUint32(meta[4:], Version)
	le.PutUint64(meta[8:], uint64(size))
	le.PutUint64(meta[16:], headerSize)
	le.PutUint64(meta[24:], entrySize)
	e := meta[headerSize:]
	le.PutUint16(e[0:], uint16(kind))
	le.PutUint16(e[2:], uint16(okind))
	le.PutUint32(e[4:], flags)
	le.PutUint64(e[8:], uint64(strOff))
	le.PutUint64(e[16:], uint64(len(strings)))
	le.PutUint64(e[24:], uint64(imgOff))
	le.PutUint64(e[32:], uint64(imageSize))
	for i, kv := range strings {
		se := meta[strOff+int64(i)*stringEntrySizeV1:]
		le.PutUint64(se[0:], uint64(tabOff)+offsets[kv.Key])
		le.PutUint64(se[8:], uint64(tabOff)+offsets[kv.Value])
	}
	copy(meta[tabOff:], table)

	n, err := w.Write(meta)
	written := int64(n)
	if err != nil {
		return written, err
	}
	m, err := io.CopyN(w, image, imageSize)
	written += m
	if err != nil {
		if err == io.EOF {
			err = fmt.Errorf("offloadbin: image shorter than %d bytes: %w", imageSize, io.ErrUnexpectedEOF)
		}
		return written, err
	}
	var pad [Alignment]byte
	n, err = w.Write(pad[:size-imgOff-imageSize])
	return written + int64(n), err
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }
