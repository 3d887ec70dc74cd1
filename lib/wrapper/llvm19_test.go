package wrapper

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// llvmText is b as an LLVM IR string constant, c"...".
func llvmText(b []byte) string {
	var s strings.Builder
	s.WriteString(`c"`)
	for _, c := range b {
		if c >= ' ' && c <= '~' && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\%02X`, c)
		}
	}
	s.WriteString(`"`)
	return s.String()
}

// emptyImage is the fat binary clang-linker-wrapper --dry-run wraps: none.
var emptyImage = regexp.MustCompile(`(@\.fatbin_image = internal constant )\[0 x i8\] zeroinitializer`)

// TestFatbinLegacyMatchesLLVM19 takes LLVM 19's own registration of the
// legacy entry ABI as the reference: clang-19 compiles a CUDA and a HIP
// host object (-fgpu-rdc, new driver), clang-linker-wrapper-19 prints the
// module it wraps them with (--dry-run --print-wrapped-module; the fat
// binary, which a dry run does not build, is set to ours), and clang-19
// compiles it. Linked with the recording runtime, the host object and
// hand-made entries of every type, our object form and our bitcode (LLVM
// 14's form, compiled by clang-19) must make the calls LLVM 19's makes.
func TestFatbinLegacyMatchesLLVM19(t *testing.T) {
	needX86Linux(t)
	llvmtest.Need(t, "gcc", "clang-19", "clang-linker-wrapper-19")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"rt.c": stubFatbinRuntime, "entries.c": entriesLegacy, "dev.cu": deviceSource})
	llvmtest.Run(t, dir, "gcc", "-c", "rt.c", "entries.c")
	for _, c := range []struct {
		kind Kind
		in   []byte
		arch string
	}{{CUDA, fatbinFixture(), "sm_70"}, {HIP, bundleVector(), "gfx906"}} {
		k := c.kind.String()
		host := "host19-" + k + ".o"
		llvmtest.Run(t, dir, "clang-19", "-x", k, "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nogpuinc", "-nocudalib",
			"-nogpulib", "--offload-arch="+c.arch, "-c", "dev.cu", "-o", host)
		r := llvmtest.RunResult(t, dir, nil, "clang-linker-wrapper-19", "--host-triple=x86_64-pc-linux-gnu", "--dry-run",
			"--print-wrapped-module", "-o", "a.out", host)
		// The module goes to stderr, among the commands a dry run prints
		// (lines that start ` "`).
		_, module, found := strings.Cut(r.Stderr, "; ModuleID")
		module, _, _ = strings.Cut(module, "\n \"")
		if r.Code != 0 || !found || !emptyImage.MatchString(module) {
			t.Fatalf("%s: clang-linker-wrapper-19 printed no module with an empty fat binary to fill: %v", k, r)
		}
		module = "; ModuleID" + emptyImage.ReplaceAllString(module, fmt.Sprintf("${1}[%d x i8] %s", len(c.in), llvmText(c.in)))
		llvmtest.WriteFile(t, dir, "ref19-"+k+".ll", []byte(module))
		llvmtest.Run(t, dir, "clang-19", "-c", "-fPIC", "-x", "ir", "ref19-"+k+".ll", "-o", "ref19-"+k+".o")
		want := runLinked(t, dir, "ref19-"+k, host, "entries.o", "rt.o", "ref19-"+k+".o")
		if !strings.Contains(want, "RegisterFunction h=1 fun=1 kern kern") || !strings.Contains(want, k+"_ext_const") {
			t.Fatalf("%s: LLVM 19's program registers too little; the fixture is broken:\n%s", k, want)
		}
		img := fileImage(t, dir, k+".img", c.in)
		o := Options{Kind: c.kind, ABI: Legacy}
		llvmtest.WriteFile(t, dir, "ours-"+k+".o", emit(t, "obj", []Image{img}, o))
		llvmtest.WriteFile(t, dir, "ours-"+k+".bc", emit(t, "bc", []Image{img}, o))
		llvmtest.Run(t, dir, "clang-19", "-c", "-fPIC", "ours-"+k+".bc", "-o", "ours-bc19-"+k+".o")
		for _, obj := range []string{"ours-" + k + ".o", "ours-bc19-" + k + ".o"} {
			if got := runLinked(t, dir, strings.TrimSuffix(obj, ".o"), host, "entries.o", "rt.o", obj); got != want {
				t.Errorf("%s: calls differ from LLVM 19's wrapper\nLLVM 19:\n%s\nours:\n%s", obj, want, got)
			}
		}
	}
}
