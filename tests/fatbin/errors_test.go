package fatbin_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestFatbinRefuses: command lines fatbinary refuses are refused, with an
// error naming the file or option at fault, and the output that was there
// before is left as it was. Where fatbinary writes something misleading
// (it drops the --image3 images when --image is given too, and reads
// sm=70a and sm=90a as 70 and 90), we refuse; the test checks that
// fatbinary does so.
func TestFatbinRefuses(t *testing.T) {
	ins := corpus(t)
	find := func(kind string, arch int, elf32 bool) string {
		for _, in := range ins {
			if in.kind == kind && in.arch == arch && in.elf32 == elf32 && !strings.Contains(in.file, "clang") {
				return in.file
			}
		}
		t.Fatalf("no %s for %d in the corpus", kind, arch)
		return ""
	}
	cubin70, cubin32, ptx := find("elf", 70, false), find("elf", 52, true), find("ptx", 52, false)
	dir := t.TempDir()
	notPTX := llvmtest.WriteFile(t, dir, "nover.ptx", []byte(".target sm_70\n"))
	missing := filepath.Join(dir, "missing.cubin")
	for _, c := range []struct {
		name   string
		args   []string
		nvOK   bool   // fatbinary succeeds (writing what we refuse to)
		code   int    // our exit status
		stderr string // in our error
	}{
		{"cubin of another arch", []string{"-64", "--image3=kind=elf,sm=80,file=" + cubin70}, false, 1, cubin70 + ": elf arch '70' does not match '80'"},
		{"missing file", []string{"-64", "--image3=kind=elf,sm=70,file=" + missing}, false, 1, missing},
		{"PTX without .version", []string{"-64", "--image3=kind=ptx,sm=70,file=" + notPTX}, false, 1, notPTX + ": could not find ptx version"},
		{"a cubin for --image=profile=compute_", []string{"-64", "--image=profile=compute_70,file=" + cubin70}, false, 1, cubin70 + ": could not find ptx version"},
		{"ELF64 without -64", []string{"--image3=kind=elf,sm=70,file=" + cubin70}, false, 1, cubin70 + ": elf not '32bit'"},
		{"ELF32 with -64", []string{"-64", "--image3=kind=elf,sm=52,file=" + cubin32}, false, 1, cubin32 + ": elf not '64bit'"},
		{"unknown kind", []string{"-64", "--image3=kind=cubin,sm=70,file=" + cubin70}, false, 2, `unknown kind "cubin"`},
		{"missing sm", []string{"-64", "--image3=kind=elf,file=" + cubin70}, false, 2, "missing sm="},
		{"keyword twice", []string{"-64", "--image3=kind=elf,sm=70,file=" + cubin70 + ",kind=ptx"}, false, 2, "given twice"},
		{"unknown keyword", []string{"-64", "--image3=kind=elf,sm=70,arch=sm_70,file=" + cubin70}, false, 2, `"arch=sm_70" is not one of its keywords`},
		{"unknown profile", []string{"-64", "--image=profile=sm70,file=" + cubin70}, false, 2, `unknown profile "sm70"`},
		{"unknown option", []string{"-64", "--bogus", "--image3=kind=elf,sm=70,file=" + cubin70}, false, 2, "'--bogus'"},
		{"bad --compress", []string{"-64", "--compress=maybe", "--image3=kind=elf,sm=70,file=" + cubin70}, false, 2, "--compress=maybe"},
		{"--image with --image3", []string{"-64", "--image=profile=compute_52,file=" + ptx, "--image3=kind=elf,sm=70,file=" + cubin70}, true, 2, "--image and --image3 together"},
		{"sm with a suffix", []string{"-64", "--image3=kind=elf,sm=70a,file=" + cubin70}, true, 2, "sm=70a: sm_70a is not a target: SM 70 has no architecture-specific variant"},
		{"sm with an f suffix", []string{"-64", "--image3=kind=elf,sm=70f,file=" + cubin70}, true, 2, "sm=70f: family-specific target sm_70f: not written"},
		// fatbinary 11.8 writes sm=90a as sm_90: the "a" is lost.
		{"an a target as CUDA 11.8", []string{"-64", "--image3=kind=ptx,sm=90a,file=" + ptx}, true, 2, ptx + ": sm_90a: CUDA 11.8's fatbinary has no architecture-specific targets"},
		{"an a profile", []string{"-64", "--image=profile=compute_90a,file=" + ptx}, false, 2, ptx + ": sm_90a: CUDA 11.8's fatbinary has no architecture-specific targets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := []byte("the output before the run\n")
			target := llvmtest.WriteFile(t, dir, "out.fatbin", before)
			args := append([]string{"--create=" + target}, c.args...)
			if nv := llvmtest.RunResult(t, dir, nil, "fatbinary", args...); (nv.Code == 0) != c.nvOK {
				t.Errorf("fatbinary %q: %v (the test expects it to succeed: %v)", args, nv, c.nvOK)
			}
			llvmtest.WriteFile(t, dir, "out.fatbin", before)
			r := llvmtest.RunResult(t, dir, nil, offloadBin, append([]string{"fatbin"}, args...)...)
			if r.Code != c.code || !strings.Contains(r.Stderr, c.stderr) {
				t.Errorf("offload fatbin %q: %v; want exit %d and %q", args, r, c.code, c.stderr)
			}
			if b := llvmtest.ReadFile(t, target); !bytes.Equal(b, before) {
				t.Errorf("the output was changed by a failed run: %q", b)
			}
		})
	}
}
