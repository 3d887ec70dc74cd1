package main

// Checks that follow LLVM's own regression tests of the wrapper tools:
// llvm/test/tools/llvm-offload-wrapper (offload-wrapper.ll, coff-opt-ref.ll)
// as LLVM 22.1.8 behaves, and clang/test/Driver/clang-offload-wrapper.c of
// LLVM 14. Each runs the installed LLVM tool and ours on the same input
// and compares; what LLVM's main branch added since 22.1.8 (--kind=sycl,
// --relocatable, Mach-O sections, one-entry COFF bounds) is checked as
// 22.1.8 has it.

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// suiteSource stands in for the .ll file LLVM's test wraps (its own
// source): text with quotes, backslashes, braces, tabs and newlines, plus
// a NUL and bytes above 0x7f, all of which the IR string must escape.
const suiteSource = "; RUN: wrap %s -o %t.bc\n;\tCHECK: c\"{{.*}}\", section \"x\"\n; a \\ backslash\x00\xff\xfe end\n"

// disBody is llvm-dis-22's text of file in dir without its first line (the
// ModuleID comment, which names the file).
func disBody(t *testing.T, dir, file string) string {
	t.Helper()
	_, body, _ := strings.Cut(llvmtest.Run(t, dir, llvmtest.Oracle("llvm-dis"), file, "-o", "-"), "\n")
	if llvmtest.OracleMajor() >= 23 {
		// LLVM 23 marks the fat binary wrapper so; 22.1.8 and ours do
		// not (pinned by lib/wrapper's asLLVM22).
		body = strings.ReplaceAll(body, ", no_sanitize_address, no_sanitize_hwaddress", "")
	}
	return body
}

// irBytes returns the bytes of the c"..." initializer of global @name in
// llvm-dis text, or nil when there is none.
func irBytes(ir, name string) []byte {
	for _, line := range strings.Split(ir, "\n") {
		if !strings.HasPrefix(line, "@"+name+" = ") {
			continue
		}
		i := strings.Index(line, `c"`)
		if i < 0 {
			return nil
		}
		var out []byte
		for s := line[i+2:]; s != "" && s[0] != '"'; {
			if s[0] != '\\' {
				out, s = append(out, s[0]), s[1:]
				continue
			}
			if len(s) >= 2 && s[1] == '\\' {
				out, s = append(out, '\\'), s[2:]
				continue
			}
			if len(s) < 3 {
				return nil
			}
			v, err := strconv.ParseUint(s[1:3], 16, 8)
			if err != nil {
				return nil
			}
			out, s = append(out, byte(v)), s[3:]
		}
		return out
	}
	return nil
}

// TestSuiteWrapperRuns runs the command lines of offload-wrapper.ll (a
// spelled-out host triple, single-dash -kind, the input before -o) for
// each kind on ELF and, for HIP, COFF: LLVM and we must succeed silently
// and write modules llvm-dis-22 prints alike. Our module must also hold the
// input byte for byte and register it from a priority-101 constructor in
// .text.startup; COFF entry bounds must be 22.1.8's empty weak_odr arrays
// in llvm_offload_entries$OA and $OZ.
func TestSuiteWrapperRuns(t *testing.T) {
	llvmtest.Need(t, llvmtest.Oracle("llvm-offload-wrapper"), llvmtest.Oracle("llvm-dis"))
	prog := llvmtest.Oracle("llvm-offload-wrapper")
	for _, c := range []struct {
		kind, triple, image, ctor string
		want                      []string
	}{
		{"openmp", "x86_64-unknown-linux-gnu", ".omp_offloading.device_image", ".omp_offloading.descriptor_reg",
			[]string{`@__dummy.llvm_offload_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section "llvm_offload_entries"`,
				`call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)`,
				`call void @__tgt_unregister_lib(ptr @.omp_offloading.descriptor)`}},
		{"hip", "x86_64-unknown-linux-gnu", ".fatbin_image", ".hip.fatbin_reg",
			[]string{`{ i32 1212764230, i32 1, ptr @.fatbin_image, ptr null }, section ".hipFatBinSegment"`,
				`call ptr @__hipRegisterFatBinary(ptr @.fatbin_wrapper)`,
				`call void @__hipUnregisterFatBinary(ptr %0)`}},
		{"cuda", "x86_64-unknown-linux-gnu", ".fatbin_image", ".cuda.fatbin_reg",
			[]string{`{ i32 1180844977, i32 1, ptr @.fatbin_image, ptr null }, section ".nvFatBinSegment"`,
				`call void @__cudaRegisterFatBinaryEnd(ptr %0)`,
				`call void @__cudaUnregisterFatBinary(ptr %0)`}},
		{"hip", "x86_64-pc-windows-msvc", ".fatbin_image", ".hip.fatbin_reg",
			[]string{`@__start_llvm_offload_entries = weak_odr hidden constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section "llvm_offload_entries$OA"`,
				`@__stop_llvm_offload_entries = weak_odr hidden constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section "llvm_offload_entries$OZ"`,
				`icmp ne ptr @__start_llvm_offload_entries, @__stop_llvm_offload_entries`}},
	} {
		name := c.kind + "/" + c.triple
		args := []string{"--triple=" + c.triple, "-kind=" + c.kind, "suite.ll", "-o", "out.bc"}
		llvmDir, ourDir := t.TempDir(), t.TempDir()
		for _, d := range []string{llvmDir, ourDir} {
			llvmtest.WriteFile(t, d, "suite.ll", []byte(suiteSource))
		}
		llvm := llvmtest.RunResult(t, llvmDir, nil, prog, args...)
		rc, stdout, stderr := wrapRun(t, ourDir, prog, args...)
		if llvm.Code != 0 || llvm.Stdout != "" || llvm.Stderr != "" {
			t.Fatalf("%s: LLVM: %v", name, llvm)
		}
		if rc != 0 || stdout != "" || stderr != "" {
			t.Errorf("%s: rc %d, stdout %q, stderr %q; LLVM succeeds silently", name, rc, stdout, stderr)
			continue
		}
		want, got := disBody(t, llvmDir, "out.bc"), disBody(t, ourDir, "out.bc")
		if got != want {
			t.Errorf("%s: llvm-dis-22 prints our module as\n%.3000s\nand LLVM's as\n%.3000s", name, got, want)
		}
		if b := irBytes(got, c.image); !bytes.Equal(b, []byte(suiteSource)) {
			t.Errorf("%s: @%s holds %q, want the input %q", name, c.image, b, suiteSource)
		}
		ctor := "[{ i32, ptr, ptr } { i32 101, ptr @" + c.ctor + ", ptr null }]"
		want2 := append([]string{ctor, "define internal void @" + c.ctor + `() section ".text.startup"`}, c.want...)
		for _, w := range want2 {
			if !strings.Contains(got, w) {
				t.Errorf("%s: our module lacks %q", name, w)
			}
		}
	}
}

// TestSuiteWrapperRefusals covers the runs of offload-wrapper.ll that LLVM
// 22.1.8 refuses or cannot carry through. --kind=sycl and --relocatable
// came after 22.1.8: both tools refuse them, alike. For a Mach-O host
// LLVM 22 writes a module clang-22 cannot compile (its functions sit in
// .text.startup, no Mach-O section); we refuse the triple, saying so, and
// write nothing (docs/compatibility.md).
func TestSuiteWrapperRefusals(t *testing.T) {
	llvmtest.Difference(t, 23, "llvm-offload-wrapper 23 takes --kind=sycl and --relocatable, which 22.1.8 and ours refuse, and clang-23 fails on its Mach-O module in the back end (section specifier), not in .text.startup", "the LLVM 23 run of this test; docs/compatibility.md")
	llvmtest.Need(t, llvmtest.Oracle("llvm-offload-wrapper"), llvmtest.Oracle("clang"))
	prog := llvmtest.Oracle("llvm-offload-wrapper")
	for _, c := range []struct {
		args []string
		// firstLine compares the first line of stderr only: for an unknown
		// option LLVM then suggests the nearest one, breaking ties between
		// equally near options by its option table's hash order, which our
		// cl does not reproduce.
		firstLine bool
	}{
		{[]string{"--triple=x86_64-unknown-linux-gnu", "-kind=sycl", "suite.ll", "-o", "out.bc"}, false},
		{[]string{"--triple=x86_64-unknown-linux-gnu", "-kind=openmp", "--relocatable", "suite.ll", "-o", "out.bc"}, true},
	} {
		llvmDir, ourDir := t.TempDir(), t.TempDir()
		for _, d := range []string{llvmDir, ourDir} {
			llvmtest.WriteFile(t, d, "suite.ll", []byte(suiteSource))
		}
		llvm := llvmtest.RunResult(t, llvmDir, nil, prog, c.args...)
		rc, _, stderr := wrapRun(t, ourDir, prog, c.args...)
		want, got := llvm.Stderr, stderr
		if c.firstLine {
			want, _, _ = strings.Cut(want, "\n")
			got, _, _ = strings.Cut(got, "\n")
		}
		if llvm.Code != 1 || rc != 1 || got != want || want == "" {
			t.Errorf("%q: rc %d stderr %q; LLVM: rc %d stderr %q", c.args, rc, stderr, llvm.Code, llvm.Stderr)
		}
		for _, d := range []string{llvmDir, ourDir} {
			if _, err := os.Stat(filepath.Join(d, "out.bc")); err == nil {
				t.Errorf("%q: out.bc written in %s", c.args, d)
			}
		}
	}
	for _, kind := range []string{"openmp", "cuda", "hip"} {
		const mac = "x86_64-apple-macosx10.15.0"
		args := []string{"--triple=" + mac, "-kind=" + kind, "suite.ll", "-o", "out.bc"}
		dir := t.TempDir()
		llvmtest.WriteFile(t, dir, "suite.ll", []byte(suiteSource))
		llvmtest.Run(t, dir, prog, args...)
		if r := llvmtest.RunResult(t, dir, nil, llvmtest.Oracle("clang"), "--target="+mac, "-c", "out.bc", "-o", "out.o"); r.Code == 0 || !strings.Contains(r.Stderr, "'.text.startup'") {
			t.Errorf("%s: clang-22 now compiles LLVM's Mach-O module (%v): revisit our refusal", kind, r)
		}
		os.Remove(filepath.Join(dir, "out.bc"))
		rc, _, stderr := wrapRun(t, dir, prog, args...)
		if rc != 1 || stderr != prog+": error: '"+mac+"': Mach-O hosts are not supported (LLVM 22's wrapper module for them does not compile)\n" {
			t.Errorf("%s: Mach-O host: rc %d, stderr %q", kind, rc, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.bc")); err == nil {
			t.Errorf("%s: Mach-O host: out.bc written", kind)
		}
	}
}

// suiteStubs defines, for an x86-64 Windows DLL, the HIP runtime functions
// the wrapper calls, so the link needs no runtime library.
const suiteStubs = `target triple = "x86_64-pc-windows-msvc"
define ptr @__hipRegisterFatBinary(ptr %w) {
  ret ptr %w
}
define void @__hipUnregisterFatBinary(ptr %h) {
  ret void
}
define i32 @atexit(ptr %f) {
  ret i32 0
}
define i32 @__hipRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr) {
  ret i32 0
}
define void @__hipRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32) {
  ret void
}
define void @__hipRegisterManagedVar(ptr, ptr, ptr, ptr, i64, i32) {
  ret void
}
define void @__hipRegisterSurface(ptr, ptr, ptr, ptr, i32, i32) {
  ret void
}
define void @__hipRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32) {
  ret void
}
`

// suiteHostEntry is a host object's contribution: one 56-byte entry (a HIP
// kernel) in the entries section the bounds bracket.
const suiteHostEntry = `target triple = "x86_64-pc-windows-msvc"
%entry = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }
@k = global i8 0
@k.name = private constant [2 x i8] c"k\00"
@k.entry = weak constant %entry { i64 0, i16 1, i16 4, i32 0, ptr @k, ptr @k.name, i64 0, i64 0, ptr null }, section "llvm_offload_entries$OE", align 8
@llvm.compiler.used = appending global [1 x ptr] [ptr @k.entry], section "llvm.metadata"
`

// TestSuiteWrapperCOFFLink follows coff-opt-ref.ll as far as LLVM 22.1.8
// goes: a HIP wrapper for x86_64-pc-windows-msvc, compiled by clang-22 for
// that target, must give LLVM's object byte for byte, with the bounds in
// llvm_offload_entries$OA and $OZ (empty in 22.1.8: LLVM main makes them
// one entry each), 8-byte aligned. lld-link-22 /opt:ref must then link it
// as it links LLVM's: with a host entry, the bounds bracket exactly that
// entry; with none, both fail alike (22.1.8's zero-size bounds are
// discarded; LLVM main fixed this).
func TestSuiteWrapperCOFFLink(t *testing.T) {
	llvmtest.Need(t, llvmtest.Oracle("llvm-offload-wrapper"), llvmtest.Oracle("clang"), llvmtest.Oracle("lld-link"))
	// -mno-incremental-linker-compatible: no time stamp in the COFF
	// headers, so the two objects can be compared byte for byte.
	const target, noStamp = "--target=x86_64-pc-windows-msvc", "-mno-incremental-linker-compatible"
	args := []string{"--triple=x86_64-pc-windows-msvc", "-kind=hip", "image.bin", "-o", "wrapper.bc"}
	llvmDir, ourDir := t.TempDir(), t.TempDir()
	for _, d := range []string{llvmDir, ourDir} {
		llvmtest.WriteFile(t, d, "image.bin", []byte("device image\n"))
		llvmtest.WriteFile(t, d, "stubs.ll", []byte(suiteStubs))
		llvmtest.WriteFile(t, d, "host.ll", []byte(suiteHostEntry))
	}
	llvmtest.Run(t, llvmDir, llvmtest.Oracle("llvm-offload-wrapper"), args...)
	if rc, _, stderr := wrapRun(t, ourDir, llvmtest.Oracle("llvm-offload-wrapper"), args...); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr)
	}
	objs := map[string][]byte{}
	maps := map[string][]string{}
	fails := map[string]string{}
	for _, d := range []string{llvmDir, ourDir} {
		llvmtest.Run(t, d, llvmtest.Oracle("clang"), target, noStamp, "-c", "wrapper.bc", "-o", "wrapper.obj")
		llvmtest.Run(t, d, llvmtest.Oracle("clang"), target, noStamp, "-c", "-x", "ir", "stubs.ll", "-o", "stubs.obj")
		llvmtest.Run(t, d, llvmtest.Oracle("clang"), target, noStamp, "-c", "-x", "ir", "host.ll", "-o", "host.obj")
		objs[d] = llvmtest.ReadFile(t, filepath.Join(d, "wrapper.obj"))
		link := []string{"/dll", "/noentry", "/nodefaultlib", "/opt:ref"}
		llvmtest.Run(t, d, llvmtest.Oracle("lld-link"), append(link, "/map:with.map", "/out:with.dll", "wrapper.obj", "stubs.obj", "host.obj")...)
		for _, line := range strings.Split(string(llvmtest.ReadFile(t, filepath.Join(d, "with.map"))), "\n") {
			if strings.Contains(line, "llvm_offload_entries") {
				maps[d] = append(maps[d], strings.Join(strings.Fields(line), " "))
			}
		}
		r := llvmtest.RunResult(t, d, nil, llvmtest.Oracle("lld-link"), append(link, "/out:without.dll", "wrapper.obj", "stubs.obj")...)
		fails[d] = strconv.Itoa(r.Code) + "\n" + r.Stderr
	}
	if !bytes.Equal(objs[llvmDir], objs[ourDir]) {
		t.Errorf("clang-22 compiles our COFF module to another object than LLVM's (%s)", llvmtest.FirstDiff(objs[llvmDir], objs[ourDir]))
	}
	f, err := pe.NewFile(bytes.NewReader(objs[ourDir]))
	if err != nil {
		t.Fatalf("our wrapper.obj: %v", err)
	}
	for _, name := range []string{"llvm_offload_entries$OA", "llvm_offload_entries$OZ"} {
		s := f.Section(name)
		const alignMask, align8 = 0x00f00000, 0x00400000
		if s == nil || s.Size != 0 || s.Characteristics&alignMask != align8 {
			t.Errorf("our wrapper.obj: section %s is %+v, want it empty and 8-byte aligned", name, s)
		}
	}
	if strings.Join(maps[llvmDir], "\n") != strings.Join(maps[ourDir], "\n") {
		t.Errorf("link maps differ\nours:\n%s\nLLVM's:\n%s", strings.Join(maps[ourDir], "\n"), strings.Join(maps[llvmDir], "\n"))
	}
	// Section lines are "grp:offset length name class", symbol lines
	// "grp:offset name address object".
	at := map[string]string{}
	for _, line := range maps[ourDir] {
		fs := strings.Fields(line)
		switch {
		case len(fs) == 4 && strings.HasSuffix(fs[1], "H"):
			at[fs[2]] = fs[0]
		case len(fs) == 4:
			at[fs[1]] = fs[0]
		}
	}
	start, stop := at["__start_llvm_offload_entries"], at["__stop_llvm_offload_entries"]
	if start == "" || start != at["llvm_offload_entries$OA"] || start != at["llvm_offload_entries$OE"] || stop != at["llvm_offload_entries$OZ"] || !bracketsOneEntry(start, stop) {
		t.Errorf("the bounds do not bracket the one host entry: %q", maps[ourDir])
	}
	if fails[llvmDir] != fails[ourDir] || strings.HasPrefix(fails[ourDir], "0\n") {
		t.Errorf("linking without host entries: ours %q, LLVM's %q", fails[ourDir], fails[llvmDir])
	}
}

// bracketsOneEntry reports whether two map addresses "grp:offset" lie in
// one section group, 56 bytes (one entry) apart.
func bracketsOneEntry(start, stop string) bool {
	g1, o1, _ := strings.Cut(start, ":")
	g2, o2, _ := strings.Cut(stop, ":")
	a, err1 := strconv.ParseUint(o1, 16, 64)
	b, err2 := strconv.ParseUint(o2, 16, 64)
	return g1 == g2 && err1 == nil && err2 == nil && b == a+56
}

// elfImage is a minimal relocatable ELF of the given class and byte order:
// a .text section and the section name table, as a device image to which
// --add-omp-offload-notes adds notes.
func elfImage(is64 bool, bo binary.ByteOrder) []byte {
	text := []byte("device code\x00")
	names := []byte("\x00.text\x00.shstrtab\x00")
	ehsize, shentsize := 52, 40
	if is64 {
		ehsize, shentsize = 64, 64
	}
	textOff := ehsize
	namesOff := textOff + len(text)
	shoff := (namesOff + len(names) + 7) &^ 7
	b := make([]byte, shoff+3*shentsize)
	copy(b, "\x7fELF")
	b[elf.EI_CLASS], b[elf.EI_DATA], b[elf.EI_VERSION] = byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), 1
	if is64 {
		b[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	}
	if bo == binary.BigEndian {
		b[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	bo.PutUint16(b[16:], uint16(elf.ET_REL))
	bo.PutUint32(b[20:], 1)
	copy(b[textOff:], text)
	copy(b[namesOff:], names)
	type shdr struct{ name, typ, flags, off, size, align int }
	secs := []shdr{{}, {1, int(elf.SHT_PROGBITS), int(elf.SHF_ALLOC | elf.SHF_EXECINSTR), textOff, len(text), 4}, {7, int(elf.SHT_STRTAB), 0, namesOff, len(names), 1}}
	for i, s := range secs {
		h := b[shoff+i*shentsize:]
		bo.PutUint32(h[0:], uint32(s.name))
		bo.PutUint32(h[4:], uint32(s.typ))
		if is64 {
			bo.PutUint64(h[8:], uint64(s.flags))
			bo.PutUint64(h[24:], uint64(s.off))
			bo.PutUint64(h[32:], uint64(s.size))
			bo.PutUint64(h[48:], uint64(s.align))
		} else {
			bo.PutUint32(h[8:], uint32(s.flags))
			bo.PutUint32(h[16:], uint32(s.off))
			bo.PutUint32(h[20:], uint32(s.size))
			bo.PutUint32(h[32:], uint32(s.align))
		}
	}
	if is64 {
		bo.PutUint64(b[40:], uint64(shoff))
		bo.PutUint16(b[52:], uint16(ehsize))
		bo.PutUint16(b[58:], uint16(shentsize))
		bo.PutUint16(b[60:], 3)
		bo.PutUint16(b[62:], 2)
	} else {
		bo.PutUint32(b[32:], uint32(shoff))
		bo.PutUint16(b[40:], uint16(ehsize))
		bo.PutUint16(b[46:], uint16(shentsize))
		bo.PutUint16(b[48:], 3)
		bo.PutUint16(b[50:], 2)
	}
	return b
}

// ompNotes lists the notes of an image's .note.openmp as "name type desc",
// after checking that the image kept its .text.
func ompNotes(t *testing.T, who string, img []byte) []string {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("%s: the wrapped image is no ELF file: %v", who, err)
	}
	if text := f.Section(".text"); text == nil {
		t.Errorf("%s: the wrapped image lost .text", who)
	} else if d, _ := text.Data(); string(d) != "device code\x00" {
		t.Errorf("%s: the wrapped image's .text holds %q", who, d)
	}
	s := f.Section(".note.openmp")
	if s == nil || s.Type != elf.SHT_NOTE {
		t.Fatalf("%s: no SHT_NOTE .note.openmp in %v", who, f.Sections)
	}
	d, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for len(d) >= 12 {
		nsz, dsz, typ := f.ByteOrder.Uint32(d), f.ByteOrder.Uint32(d[4:]), f.ByteOrder.Uint32(d[8:])
		nend := 12 + int(nsz+3)&^3
		dend := nend + int(dsz+3)&^3
		if dend > len(d) {
			t.Fatalf("%s: note runs past its section: % x", who, d)
		}
		out = append(out, strings.TrimRight(string(d[12:12+nsz]), "\x00")+" "+strconv.Itoa(int(typ))+" "+string(d[nend:nend+int(dsz)]))
		d = d[dend:]
	}
	return out
}

// TestSuiteClangWrapperNotes follows clang-offload-wrapper.c's
// -add-omp-offload-notes runs against clang-offload-wrapper-14. An image
// that is no ELF file is wrapped as is, after the same warning. Into ELF
// images of both classes and byte orders both tools add the three
// LLVMOMPOFFLOAD notes (version 1.0, producer LLVM, producer version), in
// a .note.openmp SHT_NOTE section, keeping the image's sections. What may
// differ is kept on purpose: the producer version (LLVM 14's own, ours
// 22.1.8, as our --version says), where the notes and tables land (LLVM
// rewrites the file, we append), and our weak dummy entry.
func TestSuiteClangWrapperNotes(t *testing.T) {
	llvmtest.Need(t, "clang-offload-wrapper-14", llvmtest.Oracle("llvm-dis"))
	const prog = "clang-offload-wrapper-14"
	images := map[string][]byte{
		"dev.tgt": []byte("Content of device file\n"),
		"e64le":   elfImage(true, binary.LittleEndian),
		"e64be":   elfImage(true, binary.BigEndian),
		"e32le":   elfImage(false, binary.LittleEndian),
		"e32be":   elfImage(false, binary.BigEndian),
	}
	// The image, the pointer to its end (which names its size) and the
	// dummy entry are compared separately.
	varying := regexp.MustCompile(`(?m)^@(\.omp_offloading\.device_images? |__dummy\.omp_offloading\.entry ).*$`)
	for name, img := range images {
		args := []string{"-add-omp-offload-notes", "-target=x86_64-pc-linux-gnu", "-o", "w.bc", name}
		llvmDir, ourDir := t.TempDir(), t.TempDir()
		llvmtest.WriteFile(t, llvmDir, name, img)
		llvmtest.WriteFile(t, ourDir, name, img)
		llvm := llvmtest.RunResult(t, llvmDir, nil, prog, args...)
		rc, stdout, stderr := wrapRun(t, ourDir, prog, args...)
		if llvm.Code != 0 {
			t.Fatalf("%s: LLVM: %v", name, llvm)
		}
		if rc != 0 || stdout != llvm.Stdout || stderr != llvm.Stderr {
			t.Errorf("%s: rc %d stdout %q stderr %q; LLVM: %v", name, rc, stdout, stderr, llvm)
			continue
		}
		want, got := disBody(t, llvmDir, "w.bc"), disBody(t, ourDir, "w.bc")
		if w, g := varying.ReplaceAllString(want, "@$1"), varying.ReplaceAllString(got, "@$1"); w != g {
			t.Errorf("%s: modules differ beyond the image\nours:\n%.2000s\nLLVM's:\n%.2000s", name, g, w)
		}
		if !strings.Contains(got, "@__dummy.omp_offloading.entry = weak hidden constant [0 x %__tgt_offload_entry] zeroinitializer, section \"omp_offloading_entries\"") {
			t.Errorf("%s: our dummy entry is not the weak one:\n%.1000s", name, got)
		}
		llvmImg, ourImg := irBytes(want, ".omp_offloading.device_image"), irBytes(got, ".omp_offloading.device_image")
		if end := "i64 1, i64 0), ptr @__start_omp_offloading_entries"; !strings.Contains(got, "(["+strconv.Itoa(len(ourImg))+" x i8], ptr @.omp_offloading.device_image, "+end) {
			t.Errorf("%s: our image's end does not follow its %d bytes:\n%.1500s", name, len(ourImg), got)
		}
		if name == "dev.tgt" {
			if !bytes.Equal(ourImg, img) || !bytes.Equal(llvmImg, img) {
				t.Errorf("%s: images %q (ours), %q (LLVM's); want the input", name, ourImg, llvmImg)
			}
			continue
		}
		ln, on := ompNotes(t, "LLVM's "+name, llvmImg), ompNotes(t, "our "+name, ourImg)
		if len(ln) != 3 || !strings.HasPrefix(ln[2], "LLVMOMPOFFLOAD 3 14.") {
			t.Fatalf("%s: LLVM's notes %q", name, ln)
		}
		ln[2] = "LLVMOMPOFFLOAD 3 " + llvmVersion
		if strings.Join(on, "|") != strings.Join(ln, "|") {
			t.Errorf("%s: our notes %q, want %q (LLVM's, with our version)", name, on, ln)
		}
	}
}
