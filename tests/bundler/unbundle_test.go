package bundler_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestUnbundleCompatibility runs the compatibility rules of LLVM 22's
// isCodeObjectCompatible (clang/lib/Driver/OffloadBundler.cpp) case by
// case: the expectation is written down from those rules, and
// both tools must agree with it and with each other.
func TestUnbundleCompatibility(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	entries := []rawEntry{
		{"host-x86_64-unknown-linux-gnu-", []byte("HOST")},
		{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", []byte("906-xnack+")},
		{"hipv4-amdgcn-amd-amdhsa--gfx908", []byte("908-any")},
		{"openmp-amdgcn-amd-amdhsa--gfx90a", []byte("90a-omp")},
		{"hip-amdgcn-amd-amdhsa-gfx900", []byte("old-3-field")},
		{"hip-amdgcn-amd-amdhsa--gfx942:sramecc-:xnack+", []byte("942-s-x+")},
	}
	llvmtest.WriteFile(t, dir, "f.bc", binaryBundle(entries, 1))
	llvmtest.WriteFile(t, dir, "f.s", textBundle("#", entries))
	cases := []struct {
		req   string
		flags []string
		want  string // payload, or "" for "Can't find bundles"
	}{
		{"hip-amdgcn-amd-amdhsa--gfx906", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx906:xnack-", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", nil, "906-xnack+"},
		{"hipv4-amdgcn-amd-amdhsa--gfx906:xnack+", nil, "906-xnack+"},
		{"hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+", nil, "906-xnack+"},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+", nil, "906-xnack+"},
		{"hip-amdgcn-amd-amdhsa--gfx908", nil, "908-any"},
		{"hip-amdgcn-amd-amdhsa--gfx908:xnack+", nil, "908-any"},
		{"hip-amdgcn-amd-amdhsa--gfx908:sramecc-:xnack-", nil, "908-any"},
		{"openmp-amdgcn-amd-amdhsa--gfx908", nil, ""},
		{"openmp-amdgcn-amd-amdhsa--gfx908", []string{"-hip-openmp-compatible"}, "908-any"},
		{"hip-amdgcn-amd-amdhsa--gfx90a", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack-", []string{"--hip-openmp-compatible"}, "90a-omp"},
		{"hip-amdgcn-amd-amdhsa--gfx942:xnack+", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx942:xnack+:sramecc-", nil, "942-s-x+"},
		{"hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx900", nil, ""},
		{"hip-amdgcn-amd-amdhsa--gfx1030", nil, ""},
		{"host-x86_64-unknown-linux-gnu", nil, "HOST"},
		{"host-x86_64-pc-linux-gnu", nil, ""},
		{"host-x86_64-linux-gnu-unknown", nil, "HOST"},
	}
	for _, in := range []struct{ file, typ string }{{"f.bc", "bc"}, {"f.s", "s"}} {
		for i, c := range cases {
			t.Run(fmt.Sprintf("%s/%d", in.typ, i), func(t *testing.T) {
				lr, or := unbundleRaw(t, l, dir, in.typ, in.file, []string{c.req}, c.flags...)
				if c.want == "" {
					if lr.Code != 1 || or.Code != 1 {
						t.Errorf("%s: expected no compatible bundle", c.req)
					}
					return
				}
				if or.Code != 0 {
					return // reported by unbundleRaw
				}
				if got := llvmtest.ReadFile(t, filepath.Join(dir, "o0.out")); string(got) != c.want {
					t.Errorf("%s: got %q, want %q", c.req, got, c.want)
				}
			})
		}
	}
}

// TestAllowMissingBundles: with --allow-missing-bundles a file that holds
// no bundle is taken as the host's: host outputs get a copy, the others
// are empty; with some bundle found, the missing outputs are empty.
func TestAllowMissingBundles(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := t.TempDir()
	plain := []byte("plain host file, no bundle\n")
	llvmtest.WriteFile(t, dir, "plain", plain)
	hostObj := compileHostObject(t, dir, "host.o")
	llvmtest.WriteFile(t, dir, "b.bc", binaryBundle([]rawEntry{{hostT + "-", []byte("H")}, {g906, []byte("D")}}, 1))
	cases := []struct {
		typ, in string
		reqs    []string
		want    [][]byte
	}{
		{"bc", "plain", []string{g906, hostT}, [][]byte{{}, plain}},
		{"s", "plain", []string{hostT, g908}, [][]byte{plain, {}}},
		{"ii", "plain", []string{g908}, [][]byte{{}}},
		{"o", "host.o", []string{hostT, g906}, [][]byte{hostObj, {}}},
		{"bc", "b.bc", []string{g908, hostT, g906 + ":xnack+"}, [][]byte{{}, []byte("H"), []byte("D")}},
	}
	for i, c := range cases {
		lr, or := unbundleRaw(t, l, dir, c.typ, c.in, c.reqs, "-allow-missing-bundles")
		if lr.Code != 0 || or.Code != 0 {
			continue
		}
		for j, w := range c.want {
			if got := llvmtest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("o%d.out", j))); !bytes.Equal(got, w) {
				t.Errorf("case %d output %d: got %d bytes, want %d", i, j, len(got), len(w))
			}
		}
		// Without the flag it is an error.
		unbundleRaw(t, l, dir, c.typ, c.in, c.reqs)
		for j := range c.reqs {
			os.Remove(filepath.Join(dir, fmt.Sprintf("l%d.out", j)))
		}
	}
}
