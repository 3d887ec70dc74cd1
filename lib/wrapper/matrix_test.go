package wrapper

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// matrixClangs are the LLVM majors whose clang the reader matrix runs
// (scripts/install-deps.sh installs them all).
var matrixClangs = []int{13, 14, 15, 16, 19, 22}

// readerForms are the LLVM generations the IR forms are written for
// (Options.LLVM; 0 is the ABI's default) and the oldest LLVM that must
// read each: Legacy's default is LLVM 14's typed-pointer form, which every
// later LLVM reads too; --llvm=15 is the opaque-pointer form of LLVM 15–18;
// LLVM20 is LLVM 22's form, read from LLVM 19 on.
var readerForms = map[EntryABI][]struct{ llvm, oldest int }{
	Legacy: {{0, 13}, {15, 15}},
	LLVM20: {{0, 19}},
}

// TestReaderMatrix has each installed clang compile the bitcode and the IR
// text written for it, for every kind and entry ABI, and links the object
// with the recording runtimes: the program must make the calls that our
// EmitObj form (no compiler involved; checked against LLVM's wrappers by
// the tests above) makes. Before the writer knew reader generations,
// clang-14 refused every form (opaque pointers) and clang-15 and 16
// compiled the constant GEPs as undef (image ends, entry bounds null).
func TestReaderMatrix(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"fatrt.c": stubFatbinRuntime, "fat20.c": entriesLLVM20, "fatlegacy.c": entriesLegacy,
		"omprt.c": stubOpenMPRuntime, "omp.c": ompEntries})
	support := map[EntryABI]map[Kind][]string{LLVM20: {}, Legacy: {}}
	llvmtest.Run(t, dir, "gcc", "-c", "fatrt.c", "fat20.c", "fatlegacy.c")
	for abi, defs := range map[EntryABI][]string{LLVM20: {"-DENTRY_SIZE=56"}, Legacy: {"-DENTRY_SIZE=32", "-DLEGACY"}} {
		for _, src := range []string{"omprt", "omp"} {
			llvmtest.Run(t, dir, "gcc", append(defs, "-DWITH_INFO", "-c", src+".c", "-o", fmt.Sprintf("%s-%s.o", src, abi))...)
		}
		support[abi][OpenMP] = []string{fmt.Sprintf("omprt-%s.o", abi), fmt.Sprintf("omp-%s.o", abi)}
	}
	support[LLVM20][CUDA], support[LLVM20][HIP] = []string{"fatrt.o", "fat20.o"}, []string{"fatrt.o", "fat20.o"}
	support[Legacy][CUDA], support[Legacy][HIP] = []string{"fatrt.o", "fatlegacy.o"}, []string{"fatrt.o", "fatlegacy.o"}

	ob, raw := fileImage(t, dir, "ob.bin", offloadBinaryVector()), fileImage(t, dir, "raw.o", elfFixture(t))
	images := map[Kind][]Image{OpenMP: {ob, raw}, CUDA: {fileImage(t, dir, "cuda.img", fatbinFixture())},
		HIP: {fileImage(t, dir, "hip.img", bundleVector())}}
	type source struct {
		file   string
		oldest int
		objs   []string // what the program links besides it
		want   string   // what the object form's program prints
	}
	var sources []source
	for _, kind := range []Kind{OpenMP, CUDA, HIP} {
		for _, abi := range []EntryABI{Legacy, LLVM20} {
			imgs := images[kind]
			if kind == OpenMP && abi == Legacy {
				imgs = []Image{ob, raw}
				imgs[0].Arch, imgs[1].Arch = "gfx906", "gfx90a:xnack+"
			}
			base := fmt.Sprintf("%s-%s", kind, abi)
			o := Options{Kind: kind, ABI: abi}
			llvmtest.WriteFile(t, dir, base+"-obj.o", emit(t, "obj", imgs, o))
			want := runLinked(t, dir, base+"-obj", append(support[abi][kind], base+"-obj.o")...)
			if !strings.Contains(want, "Register") && !strings.Contains(want, "register_lib") {
				t.Fatalf("%s: the object form registers nothing:\n%s", base, want)
			}
			for _, rf := range readerForms[abi] {
				o.LLVM = rf.llvm
				for _, form := range []string{"bc", "ll"} {
					src := fmt.Sprintf("%s-llvm%d.%s", base, rf.llvm, form)
					llvmtest.WriteFile(t, dir, src, emit(t, form, imgs, o))
					sources = append(sources, source{src, rf.oldest, support[abi][kind], want})
				}
			}
		}
	}
	for _, v := range matrixClangs {
		clang := fmt.Sprintf("clang-%d", v)
		t.Run(clang, func(t *testing.T) {
			llvmtest.Need(t, clang)
			ran := 0
			for _, src := range sources {
				if v < src.oldest {
					continue
				}
				exe := strings.ReplaceAll(src.file, ".", "-") + "-" + clang
				r := llvmtest.RunResult(t, dir, nil, clang, "-c", "-fPIC", "-x", "ir", src.file, "-o", exe+".o")
				if r.Code != 0 {
					t.Errorf("%s cannot compile %s:\n%s", clang, src.file, r.Stderr)
					continue
				}
				llvmtest.Run(t, dir, "gcc", append([]string{"-o", exe, exe + ".o"}, src.objs...)...)
				if got := llvmtest.RunResult(t, dir, nil, "./"+exe); got.Code != 0 || got.Stdout != src.want {
					t.Errorf("%s compiled by %s makes other calls than the object form (exit %d):\n%s\nwant:\n%s", src.file, clang, got.Code, got.Stdout, src.want)
				}
				ran++
			}
			t.Logf("%d programs compiled and run", ran)
		})
	}
}
