package ir

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// readers are the LLVM majors whose tools the tests run, oldest first.
var readers = []int{13, 14, 15, 16, 19, 22}

// TestEveryReaderReadsTheSink writes the kitchen sink for each LLVM and
// has that LLVM read it: llvm-as-N assembles (and verifies) the text,
// llvm-dis-N must print the bitcode as it prints the assembled text, and
// llvm-as-N must verify that print. A reader older than 19 reading the
// LLVM 19 form gets undef for the constant GEPs (or, LLVM 14, refuses
// opaque pointers), which this comparison catches.
func TestEveryReaderReadsTheSink(t *testing.T) {
	for _, r := range readers {
		t.Run(fmt.Sprintf("llvm%d", r), func(t *testing.T) {
			as, dis := fmt.Sprintf("llvm-as-%d", r), fmt.Sprintf("llvm-dis-%d", r)
			if r == 13 && !llvmtest.Has(as) {
				t.Skip("LLVM 13 is not installed alongside the others here")
			}
			llvmtest.Need(t, as, dis)
			m, _ := kitchenSink()
			m.Reader = r
			if r == 22 {
				m.Reader = 0
			}
			checkReader(t, m, as, dis)
		})
	}
}

func checkReader(t *testing.T, m *Module, as, dis string) {
	t.Helper()
	dir := t.TempDir()
	var bc, ll bytes.Buffer
	if err := m.WriteBitcode(&bc); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteText(&ll); err != nil {
		t.Fatal(err)
	}
	llvmtest.WriteFile(t, dir, "ours.bc", bc.Bytes())
	llvmtest.WriteFile(t, dir, "ours.ll", ll.Bytes())
	llvmtest.Run(t, dir, as, "ours.ll", "-o", "text.bc")
	cut := func(s string) string { return s[strings.Index(s, "\n")+1:] }
	fromBC := cut(llvmtest.Run(t, dir, dis, "ours.bc", "-o", "-"))
	fromText := cut(llvmtest.Run(t, dir, dis, "text.bc", "-o", "-"))
	if fromBC != fromText {
		t.Fatalf("%s prints our bitcode as\n%s\nand our text as\n%s", dis, fromBC, fromText)
	}
	llvmtest.WriteFile(t, dir, "back.ll", []byte(fromBC))
	llvmtest.Run(t, dir, as, "back.ll", "-o", "back.bc")
}
