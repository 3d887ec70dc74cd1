package nvfatbin

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rules-offload/rules_offload/lib/zstdexact"
)

// TestZstdFramesCUDA13 re-encodes the image of every ZSTD entry that
// CUDA 13's tools wrote (the fat binaries of fatbin/, those of
// --compress-mode=size at its level, and those nvcc embedded in the -rdc
// objects of obj/) and requires fatbinary's frame byte for byte.
func TestZstdFramesCUDA13(t *testing.T) {
	cmds := cuda13Commands(t)
	files, _ := filepath.Glob(filepath.Join(cuda13, "fatbin", "*.fatbin"))
	objs, _ := filepath.Glob(filepath.Join(cuda13, "obj", "*.o"))
	frames := 0
	for _, f := range append(files, objs...) {
		level := fatbinaryZstdLevel
		if slices.Contains(cmds[filepath.Base(f)], "--compress-mode=size") {
			level = fatbinarySizeLevel
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+4 <= len(b); off++ {
			if binary.LittleEndian.Uint32(b[off:]) != Magic {
				continue
			}
			entries, _, err := Read(bytes.NewReader(b), int64(off), int64(len(b)))
			if err != nil {
				t.Fatalf("%s at %d: %v", f, off, err)
			}
			for i, e := range entries {
				if e.Compression != Zstd {
					continue
				}
				stored := b[e.Offset : e.Offset+e.Size]
				var img bytes.Buffer
				if err := DecompressZstdTo(&img, stored, e.UncompressedSize); err != nil {
					t.Fatalf("%s entry %d: %v", f, i, err)
				}
				frame, err := zstdexact.Compress(nil, img.Bytes(), level)
				if err != nil {
					t.Fatal(err)
				}
				// The payload is the frame, padded with zeros.
				if !bytes.HasPrefix(stored, frame) || bytes.Count(stored[len(frame):], []byte{0}) != len(stored)-len(frame) {
					t.Errorf("%s entry %d (%d bytes): our frame of %d bytes is not fatbinary's (%d with padding)", filepath.Base(f), i, img.Len(), len(frame), len(stored))
				}
				frames++
			}
		}
	}
	if frames < 23 {
		t.Errorf("%d ZSTD frames, want the 23 of these fixtures", frames)
	}
	t.Logf("%d ZSTD frames byte for byte", frames)
}
