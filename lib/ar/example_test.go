package ar_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/ar"
)

// A device archive as `clang-offload-bundler -unbundle -type=a` writes it
// for raw device images, read back member by member.
func ExampleWriteArchive() {
	var buf bytes.Buffer
	err := ar.WriteArchive(&buf, []ar.WriterMember{
		{Name: "fat-hip-amdgcn-amd-amdhsa--gfx906fat.bc", Size: 3, Data: strings.NewReader("abc")},
		{Name: "short.o", Size: 2, Data: strings.NewReader("xy")},
	})
	if err != nil {
		panic(err)
	}
	r, err := ar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		panic(err)
	}
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		data, _ := io.ReadAll(m.Open(bytes.NewReader(buf.Bytes())))
		fmt.Printf("%s %q\n", m.Name, data)
	}
	// Output:
	// fat-hip-amdgcn-amd-amdhsa--gfx906fat.bc "abc"
	// short.o "xy"
}
