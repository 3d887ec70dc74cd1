package elfobj_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// Bundling a device image into a host object the way
// `clang-offload-bundler -type=o` does, then stripping it again.
func ExampleAddSections() {
	host, err := os.ReadFile("testdata/clang22-x86_64-tiny.o")
	if err != nil {
		panic(err)
	}
	const name = "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906"
	var fat bytes.Buffer
	err = elfobj.AddSections(&fat, bytes.NewReader(host), int64(len(host)), []elfobj.NewSection{{
		Name: name, Type: uint32(elf.SHT_PROGBITS), Flags: elfobj.SHF_EXCLUDE, Align: 1,
		Size: 4, Data: strings.NewReader("code"),
	}})
	if err != nil {
		panic(err)
	}

	f, err := elfobj.Open(bytes.NewReader(fat.Bytes()), int64(fat.Len()))
	if err != nil {
		panic(err)
	}
	s, _ := f.SectionByName(name)
	data, _ := io.ReadAll(f.SectionReader(s))
	fmt.Println(s.Index, string(data))

	var stripped bytes.Buffer
	isBundle := func(s elfobj.Section) bool { return strings.HasPrefix(s.Name, "__CLANG_OFFLOAD_BUNDLE__") }
	if err := elfobj.RemoveSections(&stripped, bytes.NewReader(fat.Bytes()), int64(fat.Len()), isBundle); err != nil {
		panic(err)
	}
	g, _ := elfobj.Open(bytes.NewReader(stripped.Bytes()), int64(stripped.Len()))
	fmt.Println(len(g.Sections))
	// Output:
	// 13 code
	// 13
}
