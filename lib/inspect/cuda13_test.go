package inspect

import (
	"os"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// testdata/cuda13 holds what CUDA 13.0's tools wrote (docs/provenance.md):
// k1.5.fatbin (--compress-mode=size: every entry ZSTD), k1.6.fatbin
// (speed: PTX in LZ4), and ptxas 13's cubin for sm_90a.

// Each entry is inflated and described, the algorithm named.
func TestNVFatbinCUDA13(t *testing.T) {
	for name, alg := range map[string]string{"k1.5.fatbin": "ZSTD", "k1.6.fatbin": "LZ4"} {
		b, err := os.ReadFile("testdata/cuda13/" + name)
		if err != nil {
			t.Fatal(err)
		}
		n := inspectBytes(b, Options{})
		if n.Error != "" || len(n.Children) != 3 {
			t.Fatalf("%s: %+v", name, n)
		}
		for i, want := range []string{"sm_80", "sm_90", "sm_90"} {
			e := n.Children[i]
			if e.Error != "" || e.Entry == nil || e.Entry.TargetID != want {
				t.Errorf("%s entry %d: %+v, want %s", name, i, e, want)
			}
		}
		ptx := n.Children[2]
		if !strings.Contains(ptx.Detail, "compressed by NVIDIA with "+alg) || len(ptx.Children) != 1 || ptx.Children[0].Format != "ptx" {
			t.Errorf("%s PTX entry: %+v", name, ptx)
		}
	}
}

// A cubin for sm_90a, in an entry that records 90, is listed as sm_90a:
// ptxas 13 marks the "a" in the cubin's .nv.compat, not in the entry nor
// in e_flags.
func TestNVFatbinAcceleratedTarget(t *testing.T) {
	b, err := os.ReadFile("testdata/cuda13/k1.sm_90a.cubin")
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []nvfatbin.WriteOptions{{Release: nvfatbin.CUDA130}, {Release: nvfatbin.CUDA130, CompressAll: true}} {
		fb, err := nvfatbin.Write([]nvfatbin.Image{{Kind: nvfatbin.KindELF, Arch: 90, Data: b}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		n := inspectBytes(fb, Options{})
		if e := n.Children[0]; e.Entry == nil || e.Entry.TargetID != "sm_90a" {
			t.Errorf("compress all %v: %+v", opt.CompressAll, e)
		}
	}
}
