package bundler_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestSuiteThreeDashArchiveAsWritten: LLVM's clang-offload-bundler.c (lines
// 509-519) as it is written there, with the oracle LLVM (22, or 23 with
// OFFLOAD_LLVM_ORACLE=23; both behave alike). The gfx906 object is bundled
// under a three-dash ID, which every tool stores as the processor-less
// openmp-amdgcn-amd-amdhsa--, and the archive of three bundles is
// unbundled for openmp-amdgcn-amd-amdhsa-gfx906 and -gfx908 (three dashes).
// LLVM reads both targets as the processor-less ID and exits 0 with no
// gfx906 archive and a gfx908 one holding the processor-less objects twice
// (checked, as the row in docs/compatibility.md says). Ours reads them as
// the processors, as for four dashes, and answers as LLVM answers the
// four-dash spelling of the same command: exit 1, "no compatible code
// object found for the target 'openmp-amdgcn-amd-amdhsa--gfx906'", no
// archive written; gfx908 alone, LLVM's four-dash archive byte for byte.
// This is where a run with LLVM 23 saw "no compatible code object found":
// our tool's answer, not LLVM 23's.
func TestSuiteThreeDashArchiveAsWritten(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "t.o", getHostObjects(t)[0])
	llvmtest.WriteFile(t, dir, "t.tgt1", []byte("tgt1\n"))
	llvmtest.WriteFile(t, dir, "t.tgt2", []byte("tgt2\n"))
	omp := "openmp-amdgcn-amd-amdhsa-"
	bundles := [][]string{
		{"-type=o", "-targets=" + hostT + "," + omp + "gfx906," + omp + "-gfx908", "-input=t.o", "-input=t.tgt1", "-input=t.tgt2", "-output=simple.bundle"},
		{"-type=o", "-targets=" + hostT + "," + omp + "-gfx903", "-input=t.o", "-input=t.tgt1", "-output=simple1.bundle"},
		{"-type=o", "-targets=" + hostT + ",hip-amdgcn-amd-amdhsa--gfx906", "-input=t.o", "-input=t.tgt1", "-output=simple2.bundle"},
	}
	for _, args := range bundles {
		lr := run(t, dir, nil, l, args...)
		out := strings.TrimPrefix(args[len(args)-1], "-output=")
		or := run(t, dir, nil, ours(), append(args[:len(args)-1:len(args)-1], "-output=ours-"+out)...)
		if lr.Code != 0 || or.Code != 0 {
			t.Fatalf("bundling %s: LLVM %v\nours %v", out, lr, or)
		}
		sameBytes(t, out, llvmtest.ReadFile(t, filepath.Join(dir, out)), llvmtest.ReadFile(t, filepath.Join(dir, "ours-"+out)))
	}
	listBoth(t, l, dir, "o", "simple.bundle", []string{hostT + "-", omp + "-", omp + "-gfx908"})
	llvmtest.Run(t, dir, llvmtest.Tool(t, llvmArName), "cr", "input-archive.a", "simple.bundle", "simple1.bundle", "simple2.bundle")

	threeDash := []string{omp + "gfx906", omp + "gfx908"}
	unbundle := func(tl tool, targets []string, out0, out1 string) llvmtest.Result {
		return run(t, dir, nil, tl, "-unbundle", "-type=a", "-targets="+strings.Join(targets, ","), "-input=input-archive.a", "-output="+out0, "-output="+out1)
	}
	lr, or := unbundle(l, threeDash, "l0.out", "l1.out"), unbundle(ours(), threeDash, "o0.out", "o1.out")
	processorLess := []string{"simple-" + omp + "-simple.bundle", "simple-" + omp + "-simple.bundle",
		"simple1-" + omp + "-simple1.bundle", "simple1-" + omp + "-simple1.bundle"}
	if lr.Code != 0 || exists(filepath.Join(dir, "l0.out")) || !slices.Equal(arList(t, filepath.Join(dir, "l1.out")), processorLess) {
		t.Errorf("LLVM %d on the three-dash pair no longer exits 0 with one archive of processor-less objects twice: %v",
			llvmtest.OracleMajor(), lr)
	}
	fourDash := []string{omp + "-gfx906", omp + "-gfx908"}
	lf := unbundle(l, fourDash, "f906.a", "f908.a")
	const want = "no compatible code object found for the target 'openmp-amdgcn-amd-amdhsa--gfx906' in heterogeneous archive library: input-archive.a"
	if lf.Code != 1 || errText(lf.Stderr) != want {
		t.Errorf("LLVM %d on the four-dash pair: %v; want exit 1 and %q", llvmtest.OracleMajor(), lf, want)
	}
	if or.Code != 1 || errText(or.Stderr) != want || exists(filepath.Join(dir, "o0.out")) || exists(filepath.Join(dir, "o1.out")) {
		t.Errorf("ours on the three-dash pair: %v; want exit 1, %q and no archive, as LLVM on the four-dash pair", or, want)
	}

	// gfx908 alone: LLVM's four-dash archive, whichever spelling ours gets.
	if r := run(t, dir, nil, l, "-unbundle", "-type=a", "-targets="+omp+"-gfx908", "-input=input-archive.a", "-output=l908.a"); r.Code != 0 {
		t.Fatalf("LLVM four-dash gfx908: %v", r)
	}
	if got := arList(t, filepath.Join(dir, "l908.a")); !slices.Equal(got, []string{"simple-" + omp + "-gfx908simple.bc"}) {
		t.Errorf("LLVM four-dash gfx908 archive holds %q", got)
	}
	for _, spelling := range []string{omp + "gfx908", omp + "-gfx908"} {
		if r := run(t, dir, nil, ours(), "-unbundle", "-type=a", "-targets="+spelling, "-input=input-archive.a", "-output=o908.a"); r.Code != 0 {
			t.Fatalf("ours %s: %v", spelling, r)
		}
		sameBytes(t, spelling, llvmtest.ReadFile(t, filepath.Join(dir, "l908.a")), llvmtest.ReadFile(t, filepath.Join(dir, "o908.a")))
	}
}
