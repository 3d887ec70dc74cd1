package bundle_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
)

func ExampleWriteBinary() {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}
	sizes := []int64{0, 4}
	srcs := []io.Reader{strings.NewReader(""), strings.NewReader("DEV1")}
	var buf bytes.Buffer
	if err := bundle.WriteBinary(&buf, ids, sizes, srcs, 4096); err != nil {
		panic(err)
	}
	entries, err := bundle.ReadBinary(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Println(e.ID, e.Offset, e.Size)
	}
	// Output:
	// host-x86_64-unknown-linux-gnu- 4096 0
	// hip-amdgcn-amd-amdhsa--gfx906 4096 4
}

func ExampleTextReader() {
	in := "\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n" +
		"define void @f() { ret void }\n" +
		"\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n"
	comment, _ := bundle.CommentFor("ll")
	tr := bundle.NewTextReader(strings.NewReader(in), comment)
	for {
		id, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(id)
		if _, err := io.Copy(os.Stdout, tr); err != nil {
			panic(err)
		}
	}
	// Output:
	// host-x86_64-unknown-linux-gnu-
	// define void @f() { ret void }
}
