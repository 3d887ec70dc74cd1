package ccob_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

func Example() {
	bundle := strings.Repeat("__CLANG_OFFLOAD_BUNDLE__ example payload ", 100)
	f, err := os.Create(filepath.Join(os.TempDir(), "example.ccob"))
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()

	h, err := ccob.Compress(f, strings.NewReader(bundle), int64(len(bundle)), ccob.DefaultWriterOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Version, h.Method, h.UncompressedSize)

	var out bytes.Buffer
	h, n, err := ccob.Decompress(&out, f, int64(h.TotalSize), ccob.ReaderOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.String() == bundle, n == int64(h.TotalSize))
	// Output:
	// 3 zstd 4100
	// true true
}
