package bundler

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// BenchmarkUnbundleCompressed unbundles a CCOB of four 16 MiB entries,
// streamed into the outputs and, for comparison, through a spool file
// (the path verbose runs take).
func BenchmarkUnbundleCompressed(b *testing.B) {
	const entry = 16 << 20
	rng := rand.New(rand.NewPCG(3, 4))
	code := make([]byte, 64<<10) // a "code object", repeated as device code is across targets
	for i := range code {
		code[i] = byte(rng.IntN(16))
	}
	ids := streamIDs[1:5]
	srcs := make([]io.Reader, len(ids))
	sizes := make([]int64, len(ids))
	for i := range ids {
		srcs[i], sizes[i] = io.LimitReader(repeatReader(code), entry), entry
	}
	var buf bytes.Buffer
	if err := bundle.WriteBinary(&buf, ids, sizes, srcs, 4096); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in := writeCCOB(b, dir, "in.ccob", buf.Bytes(), ccob.MethodZstd)
	for _, verbose := range []bool{false, true} {
		name := map[bool]string{false: "streamed", true: "spooled"}[verbose]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				cfg := NewConfig()
				cfg.FileType = "o"
				cfg.Targets, cfg.Inputs, cfg.Verbose, cfg.TempDir = ids, []string{in}, verbose, dir
				for i := range ids {
					cfg.Outputs = append(cfg.Outputs, filepath.Join(dir, fmt.Sprint("out", i)))
				}
				if err := Unbundle(cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type repeatReader []byte

func (r repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], r)
	}
	return n, nil
}
