package openmp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// readerClangs are the LLVM majors whose clang compiles the wrapper
// bitcode below (scripts/install-deps.sh installs them all).
var readerClangs = []int{13, 14, 15, 16, 19, 22}

// TestEveryClangRunsTheWrapper is the table of wrapper readers on the real
// runtime: LLVM 14's clang-offload-wrapper, ours under that name (with and
// without the AMD variant's --offload-arch) and `offload wrap
// --entries=legacy` (bitcode and IR text, as written by default for LLVM
// 14 and with --llvm=15) wrap device.so; every clang of the matrix old
// enough compiles each, gcc links it with the clang-16 host object and
// libomptarget 16, and the program must run its target region on the
// device, as it does with LLVM 14's own tool's bitcode and as the program
// LLVM 16's own pipeline builds (clang-16 --offload-new-driver, which
// wraps with clang-linker-wrapper-16) does. Before the writer
// knew reader generations, clang-13 and 14 refused our bitcode (opaque
// pointers) and clang-15 and 16 compiled it into a program that failed
// ("failure of target construct while offloading is mandatory": the
// image end was read as undef).
func TestEveryClangRunsTheWrapper(t *testing.T) {
	s, _ := build(t)
	llvmtest.Need(t, "clang-offload-wrapper-14")
	s.must("clang-16", "-fopenmp", "-fopenmp-targets="+offload, "--offload-new-driver", "target.c", "-o", "llvm16-pipeline",
		"-L"+llvm16Lib, "-Wl,-rpath,"+llvm16Lib)
	if out, err := s.exec("llvm16-pipeline"); err != nil || out != wantRun {
		t.Fatalf("LLVM 16's own pipeline: %v, printed %q; want %q", err, out, wantRun)
	}
	s.must("clang-offload-wrapper-14", "-target="+offload, "-o", "llvm14.bc", "device.so")
	s.must(clangWrapper, "-target="+offload, "-o", "ours.bc", "device.so")
	s.must(clangWrapper, "-target="+offload, "--offload-arch=x86-64", "-o", "ours-arch.bc", "device.so")
	wrap := []string{"wrap", "--kind=openmp", "--entries=legacy", "--triple=" + offload}
	for _, out := range []string{"wrap.bc", "wrap.ll"} {
		s.must(offloadBin, append(wrap, "-o", out, "device.so")...)
		s.must(offloadBin, append(wrap, "--llvm=15", "-o", "llvm15-"+out, "device.so")...)
	}
	inputs := []struct {
		file   string
		oldest int
	}{{"llvm14.bc", 13}, {"ours.bc", 13}, {"ours-arch.bc", 13}, {"wrap.bc", 13}, {"wrap.ll", 13},
		{"llvm15-wrap.bc", 15}, {"llvm15-wrap.ll", 15}}
	for _, v := range readerClangs {
		clang := fmt.Sprintf("clang-%d", v)
		t.Run(clang, func(t *testing.T) {
			llvmtest.Need(t, clang)
			s := step{t, s.dir}
			for _, in := range inputs {
				if v < in.oldest {
					continue
				}
				obj := fmt.Sprintf("%s-%s.o", strings.ReplaceAll(in.file, ".", "-"), clang)
				r := llvmtest.RunResult(t, s.dir, nil, clang, "-c", "-fPIC", "-x", "ir", in.file, "-o", obj)
				if r.Code != 0 {
					t.Errorf("%s cannot compile %s:\n%s", clang, in.file, r.Stderr)
					continue
				}
				prog := strings.TrimSuffix(obj, ".o")
				s.link(prog, "host.o", obj)
				if out, err := s.exec(prog); err != nil || out != wantRun {
					t.Errorf("%s compiled by %s: %v, printed %q; want %q", in.file, clang, err, out, wantRun)
				}
			}
		})
	}
}
