package ir

import (
	"bytes"
	"errors"
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
			llvmtest.Need(t, as, dis)
			sink, _ := kitchenSink()
			for _, m := range []*Module{sink, phiModule()} {
				m.Reader = r
				if r >= 19 {
					m.Reader = 0
				}
				checkReader(t, m, as, dis)
			}
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

// phiModule has a phi of i8* (for LLVM 14) fed a %pair*, which the
// lowering bitcasts at the end of the incoming block.
func phiModule() *Module {
	m := &Module{SourceFilename: "walk.c", Triple: "x86_64-unknown-linux-gnu"}
	pair := NamedStruct("pair", I32, Ptr)
	f := m.AddFunc("walk", Func(Void, Ptr, Ptr), External)
	entry, loop, done := f.AddBlock("entry"), f.AddBlock("loop"), f.AddBlock("done")
	entry.Br(loop)
	cur := loop.Phi("cur", Ptr)
	cur.Incoming(f.Params[0], entry)
	v := loop.Load("v", I32, cur, 4)
	next := loop.GEP("next", true, pair, cur, ConstInt(I64, 1))
	loop.Store(v, next, 4)
	loop.CondBr(loop.ICmp("", EQ, next, f.Params[1]), done, loop)
	cur.Incoming(next, loop)
	done.Ret()
	return m
}

// TestReaderErrors: what cannot be written for the reader asked for is
// ErrInvalid, with nothing written.
func TestReaderErrors(t *testing.T) {
	node := NamedStruct("node", I32)
	node.fields = append(node.fields, PtrTo(node))
	cases := map[string]func() *Module{
		"reader older than 13": func() *Module { m, _ := kitchenSink(); m.Reader = 12; return m },
		"struct pointing to itself, for LLVM 14": func() *Module {
			m := &Module{Reader: 14}
			m.AddGlobal("n", node)
			return m
		},
		"phi of a pointer fed an integer, for LLVM 14": func() *Module {
			m := &Module{Reader: 14}
			f := m.AddFunc("f", Func(Void, I32), Internal)
			entry, loop := f.AddBlock("entry"), f.AddBlock("loop")
			entry.Br(loop)
			p := loop.Phi("p", Ptr)
			p.Incoming(f.Params[0], entry)
			p.Incoming(p, loop)
			loop.Br(loop)
			return m
		},
	}
	for name, build := range cases {
		var bc, ll bytes.Buffer
		errBC, errLL := build().WriteBitcode(&bc), build().WriteText(&ll)
		if !errors.Is(errBC, ErrInvalid) || !errors.Is(errLL, ErrInvalid) || bc.Len()+ll.Len() != 0 {
			t.Errorf("%s: %v / %v, %d+%d bytes written; want ErrInvalid and nothing", name, errBC, errLL, bc.Len(), ll.Len())
		}
	}
}
