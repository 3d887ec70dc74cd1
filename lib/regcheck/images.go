package regcheck

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// maxInflated bounds a compressed image once inflated.
const maxInflated = 1 << 30

// Image is one target's device code in a registered fat binary: what the
// runtime can look up in it by name.
type Image struct {
	Target  string          // "sm_90", "compute_90", "gfx90a:xnack+", a triple; "" when the image does not say
	Arch    string          // a host-CPU image's architecture ("x86_64"), from its ELF machine
	Format  string          // "cubin", "PTX", "code object", "shared object"
	Kernels []string        // sorted
	Symbols map[string]bool // every name the runtime can find: kernels and variables
}

// Images lists the device images of a unit, one per target.
func (rec *Record) Images(u *Unit) ([]*Image, error) {
	var out []*Image
	for i, b := range u.Blobs {
		var imgs []*Image
		var err error
		switch u.Kind {
		case "cuda":
			imgs, err = cudaImages(rec.Open(b))
		case "hip":
			imgs, err = hipImages(rec.Open(b))
		case "openmp":
			imgs, err = openmpImages(rec.Open(b))
		default:
			err = fmt.Errorf("unknown kind %q", u.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("%s fat binary %d, image %d: %w", u.Kind, u.Handle, i, err)
		}
		out = append(out, imgs...)
	}
	return out, nil
}

// cudaImages reads an NVIDIA fat binary: cubins are sm_XX, PTX compute_XX.
func cudaImages(r *io.SectionReader) ([]*Image, error) {
	entries, err := nvfatbin.ReadAll(r, r.Size())
	if err != nil {
		return nil, err
	}
	var out []*Image
	for _, e := range entries {
		data, err := cudaPayload(r, e)
		if err != nil {
			return nil, err
		}
		var im *Image
		switch e.Kind {
		case nvfatbin.KindPTX:
			if im, err = ptxImage(data); err != nil {
				return nil, fmt.Errorf("compute_%d PTX: %w", e.Arch, err)
			}
			im.Target = fmt.Sprintf("compute_%d", e.Arch)
		case nvfatbin.KindELF:
			im, err = elfImage(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return nil, fmt.Errorf("%s cubin: %w", e.ArchName(), err)
			}
			// The cubin's own target: the entry has the SM number only,
			// not the "a" of sm_90a.
			t, err := cubin.Read(bytes.NewReader(data), int64(len(data)))
			switch {
			case err != nil:
				return nil, fmt.Errorf("%s cubin: %w", e.ArchName(), err)
			case t.SM != e.Arch:
				return nil, fmt.Errorf("%s entry holds a cubin for %s", e.ArchName(), t)
			}
			im.Target = t.String()
		default:
			continue
		}
		out = append(out, im)
	}
	return out, nil
}

func cudaPayload(r io.ReaderAt, e nvfatbin.Entry) ([]byte, error) {
	if !e.Compressed {
		src := make([]byte, e.Size)
		if _, err := r.ReadAt(src, e.Offset); err != nil {
			return nil, err
		}
		return src, nil
	}
	// Read bounds the declared size by what the compressed bytes can hold
	// (255-fold for LZ4, 32768-fold for ZSTD); memory grows with what is
	// inflated, not with what is declared.
	if e.UncompressedSize > maxInflated {
		return nil, fmt.Errorf("%s: compressed image of %d bytes declares %d inflated, more than %d",
			e.ArchName(), e.Size, e.UncompressedSize, maxInflated)
	}
	var out bytes.Buffer
	if err := e.Inflate(r, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// hipImages reads a clang offload bundle: one code object per hip entry.
func hipImages(r *io.SectionReader) ([]*Image, error) {
	entries, err := bundle.ReadBinary(r, r.Size())
	if err != nil {
		return nil, err
	}
	var out []*Image
	for _, e := range entries {
		i := strings.Index(e.ID, "--")
		if strings.HasPrefix(e.ID, "host-") || i < 0 || e.Size == 0 {
			continue
		}
		im, err := elfImage(e.Open(r), e.Size)
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s: %w", e.ID, err)
		}
		im.Target = e.ID[i+2:]
		out = append(out, im)
	}
	return out, nil
}

// openmpImages reads one image libomptarget was given: an OffloadBinary
// (LLVM's new driver) or the device image itself (an ELF file), whose
// target the recorder cannot know ("" then).
func openmpImages(r *io.SectionReader) ([]*Image, error) {
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if !offloadbin.IsOffloadBinary(head) {
		im, err := elfImage(r, r.Size())
		return []*Image{im}, err
	}
	bins, err := offloadbin.ReadAll(r, r.Size(), offloadbin.WithMaxInflatedSize(maxInflated))
	if err != nil {
		return nil, err
	}
	var out []*Image
	for i := range bins {
		b := &bins[i]
		im, err := elfImage(b.Open(), b.Size)
		if err != nil {
			return nil, fmt.Errorf("OffloadBinary image %d (%s %s): %w", i, b.Triple(), b.Arch(), err)
		}
		im.Target = b.Arch()
		if im.Target == "" || im.Target == "generic" {
			im.Target = b.Triple()
		}
		out = append(out, im)
	}
	return out, nil
}

// hostArch names the architectures of host-CPU offload images as triples
// start.
var hostArch = map[elf.Machine]string{
	elf.EM_X86_64:  "x86_64",
	elf.EM_AARCH64: "aarch64",
	elf.EM_PPC64:   "powerpc64",
	elf.EM_S390:    "s390x",
	elf.EM_RISCV:   "riscv64",
}

// emAMDGPU is EM_AMDGPU, which debug/elf does not name in older Go.
const emAMDGPU elf.Machine = 224

// stoCUDAEntry marks a cubin's kernels in st_other.
const stoCUDAEntry = 0x10

// elfImage lists an image's kernels and names. Kernels are what the
// runtime launches: cubin functions marked STO_ENTRY, AMDGPU kernels by
// their kernel descriptors (name.kd), and in host-CPU OpenMP images the
// __omp_offloading_ functions.
func elfImage(r io.ReaderAt, size int64) (*Image, error) {
	f, err := elfobj.Open(r, size)
	if err != nil {
		return nil, err
	}
	syms, err := f.DefinedSymbols(elf.SHT_SYMTAB)
	if err == nil && len(syms) == 0 {
		syms, err = f.DefinedSymbols(elf.SHT_DYNSYM)
	}
	if err != nil {
		return nil, err
	}
	im := &Image{Symbols: map[string]bool{}}
	switch f.Machine {
	case elf.EM_CUDA:
		im.Format = "cubin"
	case emAMDGPU:
		im.Format = "code object"
	default:
		im.Format = "shared object"
		im.Arch = hostArch[f.Machine]
	}
	for _, s := range syms {
		if s.Bind == elf.STB_LOCAL {
			continue
		}
		name := s.Name
		switch {
		case f.Machine == emAMDGPU && strings.HasSuffix(name, ".kd"):
			name = strings.TrimSuffix(name, ".kd")
			im.Kernels = append(im.Kernels, name)
		case f.Machine == elf.EM_CUDA && s.Type == elf.STT_FUNC && s.Other&stoCUDAEntry != 0:
			im.Kernels = append(im.Kernels, name)
		case f.Machine != elf.EM_CUDA && f.Machine != emAMDGPU && s.Type == elf.STT_FUNC &&
			strings.HasPrefix(name, "__omp_offloading_"):
			im.Kernels = append(im.Kernels, name)
		}
		im.Symbols[name] = true
	}
	sort.Strings(im.Kernels)
	return im, nil
}

// ptxImage lists the .entry functions and visible globals of PTX text.
func ptxImage(src []byte) (*Image, error) {
	im := &Image{Format: "PTX", Symbols: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	split := strings.NewReplacer("(", " ( ", ";", " ; ", "[", " [ ", "=", " = ")
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t")
		if !strings.HasPrefix(line, ".visible") && !strings.HasPrefix(line, ".weak") && !strings.HasPrefix(line, ".entry") {
			continue // instructions and directives that declare nothing
		}
		f := strings.Fields(split.Replace(line))
		if len(f) < 2 || (f[0] != ".visible" && f[0] != ".weak" && f[0] != ".entry") {
			continue
		}
		if i := index(f, ".entry"); i >= 0 && i+1 < len(f) {
			im.Kernels = append(im.Kernels, f[i+1])
			im.Symbols[f[i+1]] = true
			continue
		}
		if index(f, ".global") < 0 && index(f, ".const") < 0 {
			continue
		}
		// The name is the last word before "[", "=" or ";".
		for i := 1; i < len(f); i++ {
			if f[i] == "[" || f[i] == "=" || f[i] == ";" {
				im.Symbols[f[i-1]] = true
				break
			}
		}
	}
	sort.Strings(im.Kernels)
	return im, sc.Err()
}

func index(f []string, w string) int {
	for i, s := range f {
		if s == w {
			return i
		}
	}
	return -1
}
