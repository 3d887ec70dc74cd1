package regcheck

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// A fat binary as CUDA 13 writes it (ZSTD-compressed entries, cubins of
// ELF ABI version 8 from ptxas 13: testdata/cuda13, docs/provenance.md)
// lists its images with the cubins' own targets: sm_90a, which the entry
// header records as 90, as the cubin says it.
func TestCUDA13Images(t *testing.T) {
	var images []nvfatbin.Image
	for _, name := range []string{"k1.sm_90.cubin", "k1.sm_90a.cubin"} {
		b, err := os.ReadFile("testdata/cuda13/" + name)
		if err != nil {
			t.Fatal(err)
		}
		images = append(images, nvfatbin.Image{Kind: nvfatbin.KindELF, Arch: 90, Data: b, Name: name})
	}
	fb, err := nvfatbin.Write(images, nvfatbin.WriteOptions{Release: nvfatbin.CUDA130, CompressAll: true})
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := readImages("cuda", io.NewSectionReader(bytes.NewReader(fb), 0, int64(len(fb))), budget.New(0), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 2 || imgs[0].Target != "sm_90" || imgs[1].Target != "sm_90a" || len(imgs[1].Kernels) == 0 {
		for _, im := range imgs {
			t.Logf("%+v", *im)
		}
		t.Fatalf("%d images; want sm_90 and sm_90a with their kernels", len(imgs))
	}
}

// An architecture-specific PTX entry (flag 0x100000, as fatbinary 12.4
// writes compute_90a) is compute_90a, the target the rules declare.
func TestAcceleratedPTXImage(t *testing.T) {
	cubin, err := os.ReadFile("testdata/cuda13/k1.sm_90a.cubin")
	if err != nil {
		t.Fatal(err)
	}
	ptx, err := os.ReadFile("testdata/cuda13_k1.compute_90.ptx")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := nvfatbin.Write([]nvfatbin.Image{
		{Kind: nvfatbin.KindELF, Arch: 90, Accelerated: true, Data: cubin, Name: "k1.sm_90a.cubin"},
		{Kind: nvfatbin.KindPTX, Arch: 90, Accelerated: true, Data: ptx, Name: "k1.compute_90a.ptx"},
	}, nvfatbin.WriteOptions{Release: nvfatbin.CUDA124})
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := readImages("cuda", io.NewSectionReader(bytes.NewReader(fb), 0, int64(len(fb))), budget.New(0), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 2 || imgs[0].Target != "sm_90a" || imgs[1].Target != "compute_90a" {
		for _, im := range imgs {
			t.Logf("%+v", *im)
		}
		t.Fatalf("%d images; want sm_90a and compute_90a", len(imgs))
	}
}
