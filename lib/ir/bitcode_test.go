package ir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// kitchenSink builds a module with every construct the package has, and
// returns it with the same module written by hand as LLVM assembly.
func kitchenSink() (*Module, string) {
	m := &Module{SourceFilename: "sink.c", Triple: "x86_64-unknown-linux-gnu"}
	pair := NamedStruct("struct.pair", I32, Ptr)
	odd := NamedStruct("odd name\x01", I8)
	lit := Struct(I16, I64)

	ext := m.AddGlobal("ext", Array(0, pair))
	ext.Constant, ext.Visibility = true, Hidden
	weak := m.AddGlobal("weak.dummy", Array(0, pair))
	weak.Constant, weak.Linkage, weak.Visibility, weak.Section = true, Weak, Hidden, "my_section"
	weak.Init = &Null{T: weak.ValueType}

	img := m.AddGlobal("img", Array(6, I8))
	img.Constant, img.Linkage, img.UnnamedAddr, img.Section, img.Align = true, Internal, true, ".rodata.img", 4096
	img.Init = &Bytes{Data: strings.NewReader("a\"\\\x00\xff~"), Size: 6}
	zeros := m.AddGlobal("zeros", Array(3, I8))
	zeros.Linkage, zeros.Init = Internal, &Bytes{Data: bytes.NewReader(make([]byte, 3)), Size: 3}
	empty := m.AddGlobal("empty", Array(0, I8))
	empty.Constant, empty.Linkage, empty.Init = true, Internal, &Bytes{Data: strings.NewReader(""), Size: 0}

	end := &GEP{Src: img.ValueType, Base: img, Indices: []Constant{ConstInt(I64, 0), ConstInt(I64, 6)}}
	past := &GEP{Src: img.ValueType, Base: img, Indices: []Constant{ConstInt(I64, 1), ConstInt(I64, 0)}, Inbounds: true}
	table := m.AddGlobal("table", Array(3, pair))
	table.Constant, table.Linkage, table.Align = true, Internal, 8
	table.Init = &Aggregate{T: table.ValueType, Elems: []Constant{
		&Aggregate{T: pair, Elems: []Constant{ConstInt(I32, 0xFFFFFFFF), img}},
		&Aggregate{T: pair, Elems: []Constant{ConstInt(I32, 7), end}},
		&Aggregate{T: pair, Elems: []Constant{ConstInt(I32, 8), past}},
	}}
	ints := m.AddGlobal("ints", Struct(I1, I8, I16, I64, I64))
	ints.Linkage = Internal
	ints.Init = &Aggregate{T: ints.ValueType, Elems: []Constant{ConstInt(I1, 1), ConstInt(I8, 200),
		ConstInt(I16, -2), ConstInt(I64, -1<<63), ConstInt(I64, 1<<62)}}
	oddG := m.AddGlobal("odd\tglobal", odd)
	oddG.Linkage, oddG.Init = Internal, &Null{T: odd}
	litG := m.AddGlobal("lit", lit)
	litG.Init = &Null{T: lit}
	handle := m.AddGlobal("handle", Ptr)
	handle.Linkage, handle.Init = Internal, &Null{T: Ptr}
	used := m.AddGlobal("llvm.used", Array(1, Ptr))
	used.Linkage, used.Section = Appending, "llvm.metadata"
	used.Init = &Aggregate{T: used.ValueType, Elems: []Constant{weak}}

	hook := m.AddFunc("hook", Func(Void, Ptr), ExternWeak)
	open := m.AddFunc("open_it", Func(Ptr, Ptr, I32), External)
	run := m.AddFunc("run", Func(Void, Ptr, I64), Internal)
	run.Section = ".text.startup"
	run.Params[0].Name = "base"

	entry := run.AddBlock("entry")
	loop := run.AddBlock("loop")
	body := run.AddBlock("")
	other := run.AddBlock("other")
	done := run.AddBlock("done")
	entry.CondBr(entry.ICmp("", NE, ext, handle), loop, done)
	cur := loop.Phi("cur", PtrTo(pair)) // the pointee for LLVM 14
	cur.Incoming(ext, entry)
	field := loop.GEP("field", true, pair, cur, ConstInt(I32, 0), ConstInt(I32, 1))
	v := loop.Load("v", Ptr, field, 8)
	n := loop.Load("", I32, cur, 4)
	low := loop.Trunc("low", run.Params[1], I16)
	_ = low
	bits := loop.LShr("bits", loop.And("", n, ConstInt(I32, 24)), ConstInt(I32, 3))
	sw := loop.Switch(bits, other)
	sw.Case(ConstInt(I32, 0), body)
	sw.Case(ConstInt(I32, 3), done)
	r := body.Call("r", open, v, bits)
	body.Store(r, handle, 8)
	body.Call("", hook, r)
	body.Br(other)
	next := other.GEP("", false, pair, cur, ConstInt(I64, 1))
	other.CondBr(other.ICmp("at.end", EQ, next, ext), done, loop)
	cur.Incoming(next, other)
	done.Ret()

	text := `source_filename = "sink.c"
target triple = "x86_64-unknown-linux-gnu"

%struct.pair = type { i32, ptr }
%"odd name\01" = type { i8 }

@ext = external hidden constant [0 x %struct.pair]
@weak.dummy = weak hidden constant [0 x %struct.pair] zeroinitializer, section "my_section"
@img = internal unnamed_addr constant [6 x i8] c"a\22\5C\00\FF~", section ".rodata.img", align 4096
@zeros = internal global [3 x i8] zeroinitializer
@empty = internal constant [0 x i8] zeroinitializer
@table = internal constant [3 x %struct.pair] [%struct.pair { i32 -1, ptr @img }, %struct.pair { i32 7, ptr getelementptr ([6 x i8], ptr @img, i64 0, i64 6) }, %struct.pair { i32 8, ptr getelementptr inbounds ([6 x i8], ptr @img, i64 1, i64 0) }], align 8
@ints = internal global { i1, i8, i16, i64, i64 } { i1 true, i8 -56, i16 -2, i64 -9223372036854775808, i64 4611686018427387904 }
@"odd\09global" = internal global %"odd name\01" zeroinitializer
@lit = global { i16, i64 } zeroinitializer
@handle = internal global ptr null
@llvm.used = appending global [1 x ptr] [ptr @weak.dummy], section "llvm.metadata"

declare extern_weak void @hook(ptr)

declare ptr @open_it(ptr, i32)

define internal void @run(ptr %base, i64 %0) section ".text.startup" {
entry:
  %1 = icmp ne ptr @ext, @handle
  br i1 %1, label %loop, label %done

loop:
  %cur = phi ptr [ @ext, %entry ], [ %5, %other ]
  %field = getelementptr inbounds %struct.pair, ptr %cur, i32 0, i32 1
  %v = load ptr, ptr %field, align 8
  %2 = load i32, ptr %cur, align 4
  %low = trunc i64 %0 to i16
  %3 = and i32 %2, 24
  %bits = lshr i32 %3, 3
  switch i32 %bits, label %other [
    i32 0, label %4
    i32 3, label %done
  ]

4:
  %r = call ptr @open_it(ptr %v, i32 %bits)
  store ptr %r, ptr @handle, align 8
  call void @hook(ptr %r)
  br label %other

other:
  %5 = getelementptr %struct.pair, ptr %cur, i64 1
  %at.end = icmp eq ptr %5, @ext
  br i1 %at.end, label %done, label %loop

done:
  ret void
}
`
	return m, text
}

// TestMatchesAssembledText writes the kitchen sink as bitcode and as text
// and has llvm-dis-22 print them (the text after llvm-as-22); llvm-as-22 and
// llvm-dis-22 do the same with the hand-written assembly. The prints must
// be equal.
func TestMatchesAssembledText(t *testing.T) {
	llvmtest.Need(t, "llvm-as-22", "llvm-dis-22")
	m, text := kitchenSink()
	dir := t.TempDir()
	var bc bytes.Buffer
	if err := m.WriteBitcode(&bc); err != nil {
		t.Fatal(err)
	}
	var ll bytes.Buffer
	if err := m.WriteText(&ll); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ours.bc"), bc.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "ours.ll"), ll.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "want.ll"), []byte(text), 0o644)
	llvmtest.Run(t, dir, "llvm-as-22", "want.ll", "-o", "want.bc")
	llvmtest.Run(t, dir, "llvm-as-22", "ours.ll", "-o", "text.bc")
	cut := func(s string) string { return s[strings.Index(s, "\n")+1:] }
	want := cut(llvmtest.Run(t, dir, "llvm-dis-22", "want.bc", "-o", "-"))
	for _, f := range []string{"ours.bc", "text.bc"} {
		if got := cut(llvmtest.Run(t, dir, "llvm-dis-22", f, "-o", "-")); got != want {
			t.Errorf("llvm-dis-22 prints %s as\n%s\nand the hand-written module as\n%s", f, got, want)
		}
	}
}

// TestInvalidModules checks that modules LLVM would reject fail to write,
// with ErrInvalid, and write nothing.
func TestInvalidModules(t *testing.T) {
	foreign := (&Module{}).AddGlobal("elsewhere", I32)
	other := &Module{}
	otherFn := other.AddFunc("f", Func(Void), External)
	cases := map[string]func(m *Module){
		"alignment not a power of two": func(m *Module) { m.AddGlobal("g", I32).Align = 12 },
		"load alignment": func(m *Module) {
			g := m.AddGlobal("g", I32)
			b := m.AddFunc("f", Func(Void), Internal).AddBlock("")
			b.Load("", I32, g, 3)
			b.Ret()
		},
		"constant refers to a foreign global": func(m *Module) {
			m.AddGlobal("g", Ptr).Init = foreign
		},
		"two struct types named alike": func(m *Module) {
			m.AddGlobal("a", NamedStruct("s", I32))
			m.AddGlobal("b", NamedStruct("s", I64))
		},
		"call with too few arguments": func(m *Module) {
			f := m.AddFunc("f", Func(Void, Ptr), External)
			b := m.AddFunc("g", Func(Void), Internal).AddBlock("")
			b.Call("", f)
			b.Ret()
		},
		"call to a function of another module": func(m *Module) {
			b := m.AddFunc("g", Func(Void), Internal).AddBlock("")
			b.Call("", otherFn)
			b.Ret()
		},
		"operand of another function": func(m *Module) {
			f := m.AddFunc("f", Func(Void, I32), Internal)
			b := m.AddFunc("g", Func(Void), Internal).AddBlock("")
			b.And("", f.Params[0], ConstInt(I32, 1))
			b.Ret()
		},
		"branch to a block of another function": func(m *Module) {
			f := m.AddFunc("f", Func(Void), Internal)
			elsewhere := f.AddBlock("")
			elsewhere.Ret()
			m.AddFunc("g", Func(Void), Internal).AddBlock("").Br(elsewhere)
		},
		"wide integer constant": func(m *Module) {
			i128 := &Type{kind: intKind, bits: 128}
			m.AddGlobal("g", i128).Init = &Int{T: i128, V: 1}
		},
	}
	for name, build := range cases {
		m := &Module{}
		build(m)
		var out bytes.Buffer
		err := m.WriteBitcode(&out)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written", name, out.Len())
		}
	}
}

// pattern is an image made up on the fly: byte i is a function of i.
type pattern struct{ size int64 }

func (p pattern) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.size {
		return 0, io.EOF
	}
	n := min(int64(len(b)), p.size-off)
	for i := range b[:n] {
		b[i] = patternByte(off + int64(i))
	}
	if n < int64(len(b)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

func patternByte(i int64) byte { return byte(i*131 + i>>9) }

// checker verifies, while the bitcode streams past, that it holds the
// pattern's size bytes contiguously; at is where they start, found in the
// first KiB.
type checker struct {
	size, n, at int64
	head        []byte // the output's first KiB
	err         error
}

func (c *checker) Write(b []byte) (int, error) {
	for _, x := range b {
		if c.n < 1024 {
			c.head = append(c.head, x)
			if c.n == 1023 {
				want := make([]byte, 256)
				pattern{c.size}.ReadAt(want, 0)
				if c.at = int64(bytes.Index(c.head, want)); c.at < 0 {
					c.err = errors.New("the image does not start in the first KiB")
				}
			}
		}
		if i := c.n - c.at; c.n >= 1024 && c.at >= 0 && i < c.size && x != patternByte(i) && c.err == nil {
			c.err = fmt.Errorf("byte %d of the image differs", i)
		}
		c.n++
	}
	return len(b), nil
}

// TestImagesStream writes a module with a 256 MiB image, for LLVM 19+ and
// for LLVM 14 (typed pointers, a lowered copy of the module): the image
// must come out whole, 4-byte aligned, and the writer must not hold it.
func TestImagesStream(t *testing.T) {
	const size = 256 << 20
	for _, reader := range []int{0, 14} {
		m := &Module{Triple: "x86_64-unknown-linux-gnu", Reader: reader}
		g := m.AddGlobal("image", Array(size, I8))
		g.Constant, g.Linkage, g.Init = true, Internal, &Bytes{Data: pattern{size}, Size: size}
		c := &checker{size: size}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := m.WriteBitcode(c); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if c.err != nil {
			t.Fatalf("LLVM %d: image not found whole in the output (at %d): %v", reader, c.at, c.err)
		}
		if c.at%4 != 0 || c.n < c.at+size || c.n > c.at+size+1024 {
			t.Errorf("LLVM %d: image at %d of %d bytes: want a 4-byte aligned blob near the end", reader, c.at, c.n)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("LLVM %d: writing allocated %d bytes for a %d-byte image", reader, alloc, size)
		}
	}
}

// failing fails every read after the first n bytes.
type failing struct{ n int64 }

func (f failing) ReadAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) > f.n {
		return 0, errors.New("disk on fire")
	}
	return len(b), nil
}

// TestImageErrors checks that a failing or short image is an error.
func TestImageErrors(t *testing.T) {
	for name, img := range map[string]*Bytes{
		"read error": {Data: failing{10}, Size: 100},
		"short":      {Data: strings.NewReader("abc"), Size: 8},
	} {
		m := &Module{}
		g := m.AddGlobal("image", img.Type())
		g.Init = img
		if err := m.WriteBitcode(io.Discard); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNames(t *testing.T) {
	if got := escape("a\"b\\c\x00\x7f\xff ~"); got != `a\22b\5Cc\00\7F\FF ~` {
		t.Errorf("escape: %s", got)
	}
	for name, want := range map[string]string{"a.b$c-d_0": "a.b$c-d_0", "0abc": `"0abc"`, "": `""`, "a b": `"a b"`} {
		if got := quoteName(name); got != want {
			t.Errorf("quoteName(%q) = %s, want %s", name, got, want)
		}
	}
}
