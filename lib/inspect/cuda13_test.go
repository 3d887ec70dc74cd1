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

// nvcc 13's object (k1.o: -gencode for sm_80, and sm_90 with its PTX)
// lists the images cuobjdump -lelf -lptx lists: ELF sm_80, ELF sm_90, PTX
// sm_90, the PTX compressed with ZSTD.
func TestNVCC13Object(t *testing.T) {
	b, err := os.ReadFile("testdata/cuda13/k1.o")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Error != "" {
			t.Errorf("%s: %s", n.Name, n.Error)
		}
		if n.Entry != nil && n.Entry.OffloadKind == "cuda" {
			got = append(got, n.Entry.ImageKind+" "+n.Entry.TargetID)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(inspectBytes(b, Options{}))
	if want := "cubin sm_80,cubin sm_90,ptx sm_90"; strings.Join(got, ",") != want {
		t.Errorf("images %q, want %s", got, want)
	}
}
