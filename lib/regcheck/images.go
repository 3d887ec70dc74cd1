package regcheck

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/shown"
)

// Image is one target's device code in a registered fat binary: what the
// runtime can look up in it by name. Images that point at the same bytes
// (bundle or OffloadBinary entries sharing a payload) share their Kernels
// and Symbols: they were read once.
type Image struct {
	Target  string          // "sm_90", "compute_90", "gfx90a:xnack+", a triple; "" when the image does not say
	Arch    string          // a host-CPU image's architecture ("x86_64"), from its ELF machine
	Format  string          // "cubin", "PTX", "code object", "shared object"
	Kernels []string        // sorted
	Symbols map[string]bool // every name the runtime can find: kernels and variables
	// payload is shared by the images read from the same bytes: it tells
	// them apart, and holds the diagnosis's indexes (index.go).
	payload *payload
}

// Images lists the device images of a unit, one per target. What they
// inflate to is charged to the record's budget (one per Check); large
// images are inflated into temporary files, closed once read.
func (rec *Record) Images(u *Unit) ([]*Image, error) {
	var out []*Image
	for i, b := range u.Blobs {
		imgs, err := rec.blobImages(u.Kind, b)
		if err != nil {
			return nil, fmt.Errorf("%s fat binary %d, image %d: %w", shown.Name(u.Kind), u.Handle, i, err)
		}
		out = append(out, imgs...)
	}
	return out, nil
}

// reading is what reading one blob needs: the record's budget, the blob's
// temporary files, and the payloads read so far, by where they are.
type reading struct {
	budget *budget.Budget
	tmps   container.Temps
	read   map[span]*Image
}

// span locates a payload: a range of the blob, or of the inflated copy of
// the compressed OffloadBinary at offset inflated of the blob (-1: none).
// Blobs never share bytes, so payloads are keyed per blob.
type span struct{ inflated, off, size int64 }

func (rec *Record) blobImages(kind string, b Blob) ([]*Image, error) {
	rd := &reading{budget: rec.inflation(), tmps: container.Temps{Dir: rec.tempDir, Pattern: "offload-regcheck-*"}, read: map[span]*Image{}}
	defer rd.tmps.Close()
	r := rec.Open(b)
	switch kind {
	case "cuda":
		return rd.cudaImages(r)
	case "hip":
		return rd.hipImages(r)
	case "openmp":
		return rd.openmpImages(r)
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// once reads the image at s with read, unless it was read already: the
// image returned shares what the first read found, with its own Target.
func (rd *reading) once(s span, read func() (*Image, error)) (*Image, error) {
	if im := rd.read[s]; im != nil {
		c := *im
		return &c, nil
	}
	im, err := read()
	if err == nil {
		rd.read[s] = im
		c := *im
		im = &c
	}
	return im, err
}

// declared sums what the blob's compressed images declare they inflate
// to, from headers alone, for the record's check before inflating any.
func declared(kind string, r *io.SectionReader) uint64 {
	switch kind {
	case "cuda":
		n, _ := container.NVFatbinDeclared(r, r.Size()) // a damaged fat binary is reported when read
		return n
	case "openmp":
		return offloadbin.DeclaredSize(r, r.Size())
	}
	return 0
}

// inflateInMemory is the largest compressed fat-binary entry inflated into
// memory rather than a temporary file (container.InflateFatbinEntry).
const inflateInMemory = 64 << 10

// cudaImages reads an NVIDIA fat binary: cubins are sm_XX, PTX compute_XX.
// Its entries never share bytes; each is read as it is met.
func (rd *reading) cudaImages(r *io.SectionReader) ([]*Image, error) {
	var out []*Image
	err := container.NVFatbin(r, r.Size(), func(p container.Piece) error {
		e := p.Fatbin
		if e.Kind != nvfatbin.KindPTX && e.Kind != nvfatbin.KindELF {
			return nil
		}
		data, size, err := rd.cudaPayload(r, e)
		if err != nil {
			return err
		}
		var im *Image
		if e.Kind == nvfatbin.KindPTX {
			if im, err = ptxImage(io.NewSectionReader(data, 0, size)); err != nil {
				return fmt.Errorf("compute_%d PTX: %w", e.Arch, err)
			}
			im.Target = fmt.Sprintf("compute_%d", e.Arch)
		} else {
			if im, err = elfImage(data, size); err != nil {
				return fmt.Errorf("%s cubin: %w", e.ArchName(), err)
			}
			// The cubin's own target: the entry has the SM number only,
			// not the "a" of sm_90a.
			t, err := cubin.Read(data, size)
			switch {
			case err != nil:
				return fmt.Errorf("%s cubin: %w", e.ArchName(), err)
			case t.SM != e.Arch:
				return fmt.Errorf("%s entry holds a cubin for %s", e.ArchName(), t)
			}
			im.Target = t.String()
		}
		out = append(out, im)
		rd.tmps.Close() // a spilled entry is read: its file goes now
		return nil
	})
	return out, err
}

// cudaPayload returns where an entry's image is: in the blob, or inflated,
// charged to the budget, into memory or a temporary file.
func (rd *reading) cudaPayload(r io.ReaderAt, e *nvfatbin.Entry) (io.ReaderAt, int64, error) {
	if !e.Compressed {
		return e.Open(r), e.Size, nil
	}
	data, err := container.InflateFatbinEntry(r, e, rd.budget, inflateInMemory, rd.tmps.New)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", e.ArchName(), err)
	}
	return data, e.UncompressedSize, nil
}

// hipImages reads a clang offload bundle: one code object per hip entry.
func (rd *reading) hipImages(r *io.SectionReader) ([]*Image, error) {
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
		im, err := rd.once(span{-1, e.Offset, e.Size}, func() (*Image, error) { return elfImage(e.Open(r), e.Size) })
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s: %w", shown.Name(e.ID), err)
		}
		im.Target = e.ID[i+2:]
		out = append(out, im)
	}
	return out, nil
}

// openmpImages reads one image libomptarget was given: an OffloadBinary
// (LLVM's new driver) or the device image itself (an ELF file), whose
// target the recorder cannot know ("" then).
func (rd *reading) openmpImages(r *io.SectionReader) ([]*Image, error) {
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if !offloadbin.IsOffloadBinary(head) {
		im, err := elfImage(r, r.Size())
		return []*Image{im}, err
	}
	var out []*Image
	err := container.OffloadBinaries(r, r.Size(), rd.budget, rd.tmps.New, func(p container.Piece) error {
		b := p.Image
		s := span{-1, b.Offset, b.Size}
		if b.Compressed {
			s.inflated = b.BinaryOffset
		}
		im, err := rd.once(s, func() (*Image, error) { return elfImage(p.Data, b.Size) })
		if err != nil {
			return fmt.Errorf("OffloadBinary %s (%s %s): %w", p.Name, shown.Name(b.Triple()), shown.Name(b.Arch()), err)
		}
		im.Target = b.Arch()
		if im.Target == "" || im.Target == "generic" {
			im.Target = b.Triple()
		}
		out = append(out, im)
		return nil
	})
	return out, err
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
	im := &Image{Symbols: map[string]bool{}, payload: &payload{}}
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
		// nvcc 12 and 13 give a whole program's __device__ and
		// __constant__ variables local binding in the cubin; the CUDA
		// runtime still finds them by the name they are registered under
		// (such programs run). Other local symbols are no one's to find.
		if s.Bind == elf.STB_LOCAL && (f.Machine != elf.EM_CUDA || s.Type != elf.STT_OBJECT) {
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

// ptxImage lists the .entry functions and the module's .global and .const
// variables of PTX text: visible ones, and those nvcc 12 and 13 leave
// without .visible in a whole program (its __device__ and __constant__
// variables, which the runtime finds by their registered names); .extern
// ones are declared, not defined, here.
func ptxImage(src io.Reader) (*Image, error) {
	im := &Image{Format: "PTX", Symbols: map[string]bool{}, payload: &payload{}}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	split := strings.NewReplacer("(", " ( ", ";", " ; ", "[", " [ ", "=", " = ")
	declares := func(w string) bool {
		return w == ".visible" || w == ".weak" || w == ".entry" || w == ".global" || w == ".const"
	}
	for sc.Scan() {
		b := bytes.TrimLeft(sc.Bytes(), " \t")
		if !bytes.HasPrefix(b, []byte(".visible")) && !bytes.HasPrefix(b, []byte(".weak")) && !bytes.HasPrefix(b, []byte(".entry")) &&
			!bytes.HasPrefix(b, []byte(".global")) && !bytes.HasPrefix(b, []byte(".const")) {
			continue // instructions and directives that declare nothing: not copied
		}
		line := string(b)
		f := strings.Fields(split.Replace(line))
		if len(f) < 2 || !declares(f[0]) {
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
