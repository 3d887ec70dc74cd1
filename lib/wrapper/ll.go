package wrapper

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"strings"
)

// EmitLL writes the registration as LLVM IR text. For the LLVM20 ABI the
// module is what llvm-offload-wrapper-22 builds (llvm-dis of its bitcode and
// of this text, assembled, agree); for Legacy OpenMP it is
// clang-offload-wrapper's module, written with opaque pointers. clang
// compiles it directly: clang -c -x ir wrapper.ll.
func EmitLL(w io.Writer, imgs []Image, o Options) error {
	p, err := newPlan(imgs, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &llEmitter{w: bw, p: p}
	e.module()
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

type llEmitter struct {
	w   *bufio.Writer
	p   *plan
	err error
}

func (e *llEmitter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

// entryTy is the IR name of the offload entry struct.
func (e *llEmitter) entryTy() string {
	if e.p.abi == LLVM20 {
		return "%struct.__tgt_offload_entry"
	}
	return "%__tgt_offload_entry"
}

func (e *llEmitter) module() {
	p := e.p
	id := "offload.wrapper.module"
	if p.abi == Legacy && p.kind == OpenMP {
		id = "offload.wrapper.object"
	}
	e.printf("; ModuleID = '%s'\nsource_filename = \"%s\"\ntarget triple = \"%s\"\n\n", id, id, p.triple.str)
	if p.abi == LLVM20 {
		e.printf("%s = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }\n", e.entryTy())
	} else {
		e.printf("%s = type { ptr, ptr, i64, i32, i32 }\n", e.entryTy())
	}
	if p.kind == OpenMP {
		e.openMP()
	} else {
		e.fatbin()
	}
}

// entryBounds declares the linker-defined bounds of the entries section and
// the dummy entry that makes the linker define them.
func (e *llEmitter) entryBounds() {
	l := e.p.entries
	ty := "[0 x " + e.entryTy() + "]"
	if e.p.abi == Legacy && e.p.kind == OpenMP {
		ty = e.entryTy() // clang-offload-wrapper declared single entries
	}
	e.printf("@%s = external hidden constant %s\n", l.start, ty)
	e.printf("@%s = external hidden constant %s\n", l.stop, ty)
	if l.dummyLocal {
		e.printf("@%s = internal constant [0 x %s] zeroinitializer, section \"%s\", align 8\n", l.dummy, e.entryTy(), l.section)
		e.printf("@llvm.compiler.used = appending global [1 x ptr] [ptr @%s], section \"llvm.metadata\"\n", l.dummy)
	} else {
		e.printf("@%s = weak hidden constant [0 x %s] zeroinitializer, section \"%s\"\n", l.dummy, e.entryTy(), l.section)
	}
}

func (e *llEmitter) openMP() {
	p := e.p
	e.printf("%%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n%%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n")
	if len(p.infos) > 0 {
		e.printf("%%__tgt_image_info = type { i32, i32, i32, ptr, ptr }\n")
	}
	e.printf("\n")
	e.entryBounds()
	var arr []string
	for _, im := range p.images {
		e.printf("@%s = internal unnamed_addr constant [%d x i8] ", im.name, im.img.Size)
		e.bytes(im.img)
		if p.abi == LLVM20 {
			e.printf(", section \"%s\", align 8", im.section)
		}
		e.printf("\n")
		arr = append(arr, fmt.Sprintf("%%__tgt_device_image { %s, %s, ptr @%s, ptr @%s }",
			gep(im, im.span.begin), gep(im, im.span.end), p.entries.start, p.entries.stop))
	}
	e.printf("@%s = internal unnamed_addr constant [%d x %%__tgt_device_image] [%s]\n", p.imagesArr, len(arr), strings.Join(arr, ", "))
	e.printf("@%s = internal constant %%__tgt_bin_desc { i32 %d, ptr @%s, ptr @%s, ptr @%s }\n",
		p.desc, len(p.images), p.imagesArr, p.entries.start, p.entries.stop)
	for i, in := range p.infos {
		e.printf("@%s = internal unnamed_addr constant [%d x i8] c\"%s\\00\", section \".offload_arch_list\"\n",
			in.archName, len(in.arch)+1, llEscape([]byte(in.arch)))
		e.printf("@%s = internal unnamed_addr constant %%__tgt_image_info { i32 1, i32 %d, i32 %d, ptr @%s, ptr null }\n",
			in.name, i, len(p.infos), in.archName)
	}
	e.ctors()
	e.printf("\ndefine internal void @%s() section \".text.startup\" {\nentry:\n", p.reg)
	if len(p.infos) > 0 {
		e.printf("  %%0 = icmp ne ptr @__tgt_register_image_info, null\n  br i1 %%0, label %%info, label %%reg\n\ninfo:\n")
		for _, in := range p.infos {
			e.printf("  call void @__tgt_register_image_info(ptr @%s)\n", in.name)
		}
		e.printf("  br label %%reg\n\nreg:\n")
	}
	e.printf("  call void @__tgt_register_lib(ptr @%s)\n", p.desc)
	if p.dtorPrio == 0 {
		e.printf("  %%0 = call i32 @atexit(ptr @%s)\n", p.unreg) // only LLVM20, which has no infos
	}
	e.printf("  ret void\n}\n\n")
	if len(p.infos) > 0 {
		e.printf("declare extern_weak void @__tgt_register_image_info(ptr)\n\n")
	}
	e.printf("declare void @__tgt_register_lib(ptr)\n\n")
	if p.dtorPrio == 0 {
		e.printf("declare i32 @atexit(ptr)\n\n")
	}
	e.printf("define internal void @%s() section \".text.startup\" {\nentry:\n  call void @__tgt_unregister_lib(ptr @%s)\n  ret void\n}\n\n", p.unreg, p.desc)
	e.printf("declare void @__tgt_unregister_lib(ptr)\n")
}

// ctors writes llvm.global_ctors (and llvm.global_dtors for legacy OpenMP).
func (e *llEmitter) ctors() {
	p := e.p
	e.printf("@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 %d, ptr @%s, ptr null }]\n", p.ctorPrio, p.reg)
	if p.dtorPrio != 0 {
		e.printf("@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 %d, ptr @%s, ptr null }]\n", p.dtorPrio, p.unreg)
	}
}

// gep is a pointer to byte off of the image, folded as LLVM folds it.
func gep(im planImage, off int64) string {
	if off == 0 {
		return "ptr @" + im.name
	}
	return fmt.Sprintf("ptr getelementptr ([%d x i8], ptr @%s, i64 0, i64 %d)", im.img.Size, im.name, off)
}

func (e *llEmitter) fatbin() {
	p := e.p
	e.printf("%%fatbin_wrapper = type { i32, i32, ptr, ptr }\n\n")
	if p.abi == LLVM20 {
		e.entryBounds()
	}
	e.printf("@%s = internal constant [%d x i8] ", p.fatbin.name, p.fatbin.img.Size)
	e.bytes(p.fatbin.img)
	e.printf(", section \"%s\"\n", p.fatbin.section)
	e.printf("@%s = internal constant %%fatbin_wrapper { i32 %d, i32 1, ptr @%s, ptr null }, section \"%s\", align 8\n",
		p.wrapper, p.magic, p.fatbin.name, p.wrapSec)
	if p.abi == Legacy {
		e.entryBounds()
	}
	e.printf("@%s = internal global ptr null\n", p.handle)
	e.ctors()
	rt := p.rt
	e.printf("\ndefine internal void @%s() section \".text.startup\" {\nentry:\n", p.reg)
	e.printf("  %%0 = call ptr @%s(ptr @%s)\n  store ptr %%0, ptr @%s, align 8\n", rt.regFatbin, p.wrapper, p.handle)
	e.printf("  call void @%s(ptr %%0)\n", p.globals)
	if rt.callEnd {
		e.printf("  call void @%s(ptr %%0)\n", rt.regFatbinEnd)
	}
	e.printf("  %%1 = call i32 @atexit(ptr @%s)\n  ret void\n}\n\n", p.unreg)
	e.printf("define internal void @%s() section \".text.startup\" {\nentry:\n", p.unreg)
	e.printf("  %%0 = load ptr, ptr @%s, align 8\n  call void @%s(ptr %%0)\n  ret void\n}\n\n", p.handle, rt.unregFatbin)
	e.printf("declare ptr @%s(ptr)\n\ndeclare void @%s(ptr)\n\ndeclare void @%s(ptr)\n\ndeclare i32 @atexit(ptr)\n\n",
		rt.regFatbin, rt.regFatbinEnd, rt.unregFatbin)
	e.printf("declare i32 @%s(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)\n\n", rt.regFunc)
	e.printf("declare void @%s(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n\n", rt.regVar)
	if p.abi == LLVM20 {
		e.printf("declare void @%s(ptr, ptr, ptr, ptr, i64, i32)\n\n", rt.regManaged)
	}
	e.printf("declare void @%s(ptr, ptr, ptr, ptr, i32, i32)\n\n", rt.regSurface)
	e.printf("declare void @%s(ptr, ptr, ptr, ptr, i32, i32, i32)\n\n", rt.regTexture)
	e.globalsReg()
}

// globalsReg writes the loop that registers every entry of the kind: kernels
// (size 0), variables, managed variables, surfaces and textures.
func (e *llEmitter) globalsReg() {
	p, l, rt := e.p, e.p.entries, e.p.rt
	ty := e.entryTy()
	e.printf("define internal void @%s(ptr %%0) section \".text.startup\" {\nentry:\n", p.globals)
	e.printf("  %%1 = icmp ne ptr @%s, @%s\n  br i1 %%1, label %%while.entry, label %%while.end\n\n", l.start, l.stop)
	n := 2 // next unnamed value
	val := func() string { s := fmt.Sprintf("%%%d", n); n++; return s }
	field := func(idx int, name, typ, align string) {
		g := val()
		if p.abi == LLVM20 {
			e.printf("  %s = getelementptr inbounds %s, ptr %%entry1, i32 0, i32 %d\n", g, ty, idx)
		} else {
			e.printf("  %s = getelementptr inbounds %s, ptr %%entry1, i64 0, i32 %d\n", g, ty, idx)
		}
		e.printf("  %%%s = load %s, ptr %s, align %s\n", name, typ, g, align)
	}
	// The phi's second operand is the next entry, numbered after the body.
	var data, kindCmp string
	var body strings.Builder
	saved := e.w
	e.w = bufio.NewWriter(&body)
	if p.abi == LLVM20 {
		field(4, "addr", "ptr", "8")
		field(8, "aux_addr", "ptr", "8")
		field(2, "kind", "i16", "2")
		field(5, "name", "ptr", "8")
		field(6, "size", "i64", "4")
		field(3, "flags", "i32", "4")
		field(7, "data", "i64", "4")
		data = val()
		e.printf("  %s = trunc i64 %%data to i32\n", data)
	} else {
		field(0, "addr", "ptr", "8")
		field(1, "name", "ptr", "8")
		field(2, "size", "i64", "8")
		field(3, "flags", "i32", "4")
		field(4, "textype", "i32", "4")
		data = "%textype"
	}
	e.printf("  %%type = and i32 %%flags, 7\n")
	for _, b := range []struct {
		name  string
		mask  int
		shift int
	}{{"extern", 8, 3}, {"constant", 16, 4}, {"normalized", 32, 5}} {
		t := val()
		e.printf("  %s = and i32 %%flags, %d\n  %%%s = lshr i32 %s, %d\n", t, b.mask, b.name, t, b.shift)
	}
	if p.abi == LLVM20 {
		kindCmp = val()
		e.printf("  %s = icmp eq i16 %%kind, %d\n  br i1 %s, label %%if.kind, label %%if.end\n\nif.kind:\n", kindCmp, p.kind.offloadKind(), kindCmp)
	}
	c := val()
	e.printf("  %s = icmp eq i64 %%size, 0\n  br i1 %s, label %%if.then, label %%if.else\n\n", c, c)
	e.printf("if.then:\n  %s = call i32 @%s(ptr %%0, ptr %%addr, ptr %%name, ptr %%name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n  br label %%if.end\n\n", val(), rt.regFunc)
	e.printf("if.else:\n  switch i32 %%type, label %%if.end [\n    i32 0, label %%sw.global\n    i32 1, label %%sw.managed\n    i32 2, label %%sw.surface\n    i32 3, label %%sw.texture\n  ]\n\n")
	e.printf("sw.global:\n  call void @%s(ptr %%0, ptr %%addr, ptr %%name, ptr %%name, i32 %%extern, i64 %%size, i32 %%constant, i32 0)\n  br label %%if.end\n\n", rt.regVar)
	e.printf("sw.managed:\n")
	if rt.managed {
		e.printf("  call void @%s(ptr %%0, ptr %%aux_addr, ptr %%addr, ptr %%name, i64 %%size, i32 %s)\n", rt.regManaged, data)
	}
	e.printf("  br label %%if.end\n\nsw.surface:\n")
	if rt.surfTex {
		e.printf("  call void @%s(ptr %%0, ptr %%addr, ptr %%name, ptr %%name, i32 %s, i32 %%extern)\n", rt.regSurface, data)
	}
	e.printf("  br label %%if.end\n\nsw.texture:\n")
	if rt.surfTex {
		e.printf("  call void @%s(ptr %%0, ptr %%addr, ptr %%name, ptr %%name, i32 %s, i32 %%normalized, i32 %%extern)\n", rt.regTexture, data)
	}
	next, done := val(), val()
	e.printf("  br label %%if.end\n\nif.end:\n")
	e.printf("  %s = getelementptr inbounds %s, ptr %%entry1, i64 1\n", next, ty)
	e.printf("  %s = icmp eq ptr %s, @%s\n  br i1 %s, label %%while.end, label %%while.entry\n\nwhile.end:\n  ret void\n}\n", done, next, l.stop, done)
	if e.err == nil {
		e.err = e.w.Flush()
	}
	e.w = saved
	e.printf("while.entry:\n  %%entry1 = phi ptr [ @%s, %%entry ], [ %s, %%if.end ]\n", l.start, next)
	e.printf("%s", body.String())
}

// bytes writes the image as an IR string constant, streaming it; an image
// of zero bytes only (or none) is zeroinitializer, as LLVM prints it.
func (e *llEmitter) bytes(im Image) {
	if zero, err := allZero(im); err != nil || zero {
		e.err = cmp.Or(e.err, err)
		e.printf("zeroinitializer")
		return
	}
	e.printf("c\"")
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(im.Data, 0, im.Size)
	for e.err == nil {
		n, err := r.Read(buf)
		if n > 0 {
			e.printf("%s", llEscape(buf[:n]))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			e.err = err
		}
	}
	e.printf("\"")
}

// allZero reports whether every byte of im is zero.
func allZero(im Image) (bool, error) {
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(im.Data, 0, im.Size)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if c != 0 {
				return false, nil
			}
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// llEscape escapes bytes the way LLVM prints string constants: printable
// ASCII other than '"' and '\' as is, everything else as \XX.
func llEscape(b []byte) string {
	var s strings.Builder
	s.Grow(len(b) * 2)
	const hex = "0123456789ABCDEF"
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			s.WriteByte('\\')
			s.WriteByte(hex[c>>4])
			s.WriteByte(hex[c&15])
		}
	}
	return s.String()
}
