package wrapper

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/relobj"
)

// Fixtures. The OffloadBinary and the bundle are vectors written by LLVM
// 22.1.8's tools, typed in from their hex dumps; docs/provenance.md
// (#offload-binary, #binary-bundle) gives the commands that make them.

// offloadBinaryVector: --image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,
// kind=openmp with a.o = "AAAA"; the image lies at 0x90, 4 bytes.
func offloadBinaryVector() []byte {
	h := "10ff10ad01000000980000000000000020000000000000002800000000000000" +
		"0100010000000000480000000000000002000000000000009000000000000000" +
		"0400000000000000" +
		"69000000000000008700000000000000" + "6e000000000000007500000000000000"
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	b = append(b, "\x00arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx906\x00\x00\x00"...)
	b = append(b, "AAAA\x00\x00\x00\x00"...)
	if len(b) != 152 {
		panic(len(b))
	}
	return b
}

// bundleVector: -type=bc -targets=host-x86_64-unknown-linux-gnu,
// hip-amdgcn-amd-amdhsa--gfx906 of "HOSTDATA" and "DEV1".
func bundleVector() []byte {
	var b []byte
	b = append(b, "__CLANG_OFFLOAD_BUNDLE__"...)
	b = binary.LittleEndian.AppendUint64(b, 2)
	for _, e := range []struct {
		off, size uint64
		id        string
	}{{0x8b, 8, "host-x86_64-unknown-linux-gnu-"}, {0x93, 4, "hip-amdgcn-amd-amdhsa--gfx906"}} {
		b = binary.LittleEndian.AppendUint64(b, e.off)
		b = binary.LittleEndian.AppendUint64(b, e.size)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(e.id)))
		b = append(b, e.id...)
	}
	return append(b, "HOSTDATADEV1"...)
}

// fatbinFixture has the NVIDIA fatbinary header: magic 0xba55ed50, version
// 1, header size 16, payload size 8.
func fatbinFixture() []byte {
	return []byte("\x50\xed\x55\xba\x01\x00\x10\x00\x08\x00\x00\x00\x00\x00\x00\x00FATBIN!!")
}

// elfFixture is a small ELF relocatable object with a few sections.
func elfFixture(t testing.TB) []byte {
	f, err := relobj.New(elf.EM_X86_64)
	if err != nil {
		t.Fatal(err)
	}
	text := f.AddSection(".text", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_EXECINSTR, 16)
	text.Write([]byte{0xb8, 42, 0, 0, 0, 0xc3})
	f.AddSymbol(relobj.Symbol{Name: "kernel", Bind: elf.STB_GLOBAL, Type: elf.STT_FUNC, Section: text, Size: 6})
	var b bytes.Buffer
	if _, err := f.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func memImage(b []byte) Image { return Image{Data: bytes.NewReader(b), Size: int64(len(b))} }

// fileImage writes b to dir/name and returns an image that .incbin-s it by
// that (relative) name.
func fileImage(t testing.TB, dir, name string, b []byte) Image {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	im := memImage(b)
	im.Path = name
	return im
}

func needX86Linux(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("SKIP (loud): runs x86-64 Linux programs; host is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
}

// emitters maps each form to its function.
var emitters = map[string]func(w *bytes.Buffer, imgs []Image, o Options) error{
	"ll":  func(w *bytes.Buffer, imgs []Image, o Options) error { return EmitLL(w, imgs, o) },
	"bc":  func(w *bytes.Buffer, imgs []Image, o Options) error { return EmitBC(w, imgs, o) },
	"c":   func(w *bytes.Buffer, imgs []Image, o Options) error { return EmitC(w, imgs, o) },
	"s":   func(w *bytes.Buffer, imgs []Image, o Options) error { return EmitAsm(w, imgs, o) },
	"obj": func(w *bytes.Buffer, imgs []Image, o Options) error { return EmitObj(w, imgs, o) },
}

func emit(t testing.TB, form string, imgs []Image, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := emitters[form](&b, imgs, o); err != nil {
		t.Fatalf("%s: %v", form, err)
	}
	return b.Bytes()
}

// buildForms compiles the registration in every form the installed tools
// allow and returns the object files by a label naming form and compiler.
// Images must be files in dir (see fileImage).
func buildForms(t *testing.T, dir, tag string, imgs []Image, o Options) map[string]string {
	t.Helper()
	objs := map[string]string{}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obj := tag + "-obj.o"
	write(obj, emit(t, "obj", imgs, o))
	objs["obj"] = obj
	write(tag+".s", emit(t, "s", imgs, o))
	write(tag+".c", emit(t, "c", imgs, o))
	write(tag+".ll", emit(t, "ll", imgs, o))
	if llvmtest.Has("as") {
		llvmtest.Run(t, dir, "as", "-o", tag+"-s-as.o", tag+".s")
		objs["s/as"] = tag + "-s-as.o"
	}
	if llvmtest.Has("gcc") {
		llvmtest.Run(t, dir, "gcc", "-c", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-o", tag+"-c-gcc.o", tag+".c")
		objs["c/gcc"] = tag + "-c-gcc.o"
	}
	if llvmtest.Has(llvmtest.Oracle("clang")) {
		llvmtest.Run(t, dir, llvmtest.Oracle("clang"), "-c", "-O2", "-Wall", "-Wextra", "-Werror", "-o", tag+"-c-clang.o", tag+".c")
		objs["c/clang-22"] = tag + "-c-clang.o"
		llvmtest.Run(t, dir, llvmtest.Oracle("clang"), "-c", "-x", "ir", "-o", tag+"-ll-clang.o", tag+".ll")
		objs["ll/clang-22"] = tag + "-ll-clang.o"
		write(tag+".bc", emit(t, "bc", imgs, o))
		llvmtest.Run(t, dir, llvmtest.Oracle("clang"), "-c", "-o", tag+"-bc-clang.o", tag+".bc")
		objs["bc/clang-22"] = tag + "-bc-clang.o"
	}
	return objs
}
