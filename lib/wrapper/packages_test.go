package wrapper

import (
	"bytes"
	"debug/elf"
	"testing"
)

// A package of two OffloadBinaries (llvm-offload-binary's bytes for two
// --image arguments are two single-image binaries back to back) registers
// two images with Packages, each the whole binary, in .llvm.offloading; the
// old registration saw only the first.
func TestPackagesRegisterEveryBinaryWhole(t *testing.T) {
	one := offloadBinaryVector() // 152 bytes, a multiple of 8
	pkg := append(append([]byte{}, one...), one...)
	p, err := newPlan([]Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.images) != 2 {
		t.Fatalf("%d images registered, want 2", len(p.images))
	}
	for i, im := range p.images {
		if im.span != (span{0, 152}) || im.img.Size != 152 || im.section != ".llvm.offloading" || im.secType != shtLLVMOffloading {
			t.Errorf("image %d: span %v size %d section %s type %#x", i, im.span, im.img.Size, im.section, im.secType)
		}
	}
	old, err := newPlan([]Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy})
	if err != nil || len(old.images) != 1 || old.images[0].span != (span{0x90, 0x94}) {
		t.Fatalf("without Packages: %v", err)
	}

	obj := emit(t, "obj", []Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true})
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".llvm.offloading")
	if sec == nil || sec.Type != elf.SectionType(shtLLVMOffloading) || sec.Size < 2*152 {
		t.Fatalf(".llvm.offloading: %+v", sec)
	}
	ll := emit(t, "ll", []Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true})
	if n := bytes.Count(ll, []byte(`section ".llvm.offloading"`)); n != 2 {
		t.Errorf("IR has %d images in .llvm.offloading, want 2:\n%s", n, ll)
	}
	for _, form := range []string{"c", "s"} {
		out := emit(t, form, []Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true})
		if !bytes.Contains(out, []byte(".llvm.offloading")) || !bytes.Contains(out, []byte(".omp_offloading.device_image.1")) {
			t.Errorf("%s form lacks .llvm.offloading or the second image:\n%s", form, out)
		}
	}
}

// A package whose second binary is cut short is an error naming it, not a
// silent first-image registration.
func TestPackagesTruncated(t *testing.T) {
	one := offloadBinaryVector()
	pkg := append(append([]byte{}, one...), one[:100]...)
	if _, err := newPlan([]Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true}); err == nil {
		t.Fatal("truncated second binary accepted")
	}
	// Zero padding after the last binary is not a binary.
	padded := append(append([]byte{}, one...), make([]byte, 16)...)
	p, err := newPlan([]Image{memImage(padded)}, Options{Kind: OpenMP, ABI: Legacy, Packages: true})
	if err != nil || len(p.images) != 1 || p.images[0].img.Size != 152 {
		t.Fatalf("padded package: %v", err)
	}
}

// LLVM 20 and later (SplitPackages): a package of two binaries registers
// two images, each the image inside its binary, the binaries kept whole in
// .llvm.offloading, as clang-linker-wrapper 21's program holds them.
func TestSplitPackagesRegisterEveryInnerImage(t *testing.T) {
	one := offloadBinaryVector() // 152 bytes; the image inside at 0x90, 4 bytes
	pkg := append(append([]byte{}, one...), one...)
	p, err := newPlan([]Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: LLVM20, SplitPackages: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.images) != 2 {
		t.Fatalf("%d images registered, want 2", len(p.images))
	}
	for i, im := range p.images {
		if im.span != (span{0x90, 0x94}) || im.img.Size != 152 || im.section != ".llvm.offloading" || im.secType != shtLLVMOffloading {
			t.Errorf("image %d: span %v size %d section %s type %#x", i, im.span, im.img.Size, im.section, im.secType)
		}
	}
	old, err := newPlan([]Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: LLVM20})
	if err != nil || len(old.images) != 1 {
		t.Fatalf("without SplitPackages: %v", err)
	}
	ll := emit(t, "ll", []Image{memImage(pkg)}, Options{Kind: OpenMP, ABI: LLVM20, SplitPackages: true})
	if n := bytes.Count(ll, []byte(`section ".llvm.offloading"`)); n != 2 {
		t.Errorf("IR has %d images in .llvm.offloading, want 2:\n%s", n, ll)
	}
}
