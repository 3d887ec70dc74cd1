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
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/shown"
	"github.com/rules-offload/rules_offload/lib/targetid"
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
		imgs, err := readImages(u.Kind, rec.Open(b), rec.inflation(), rec.tempDir)
		if err != nil {
			return nil, fmt.Errorf("%s fat binary %d, image %d: %w", shown.Name(u.Kind), u.Handle, i, err)
		}
		out = append(out, imgs...)
	}
	return out, nil
}

// registered says what each runtime's registration call is handed.
var registered = map[string]takes{
	"cuda":   {container.FormatNVFatbin, false, false},     // __cudaRegisterFatBinary
	"hip":    {container.FormatBundle, false, true},        // __hipRegisterFatBinary: plain, or --offload-compress's
	"openmp": {container.FormatOffloadBinary, true, false}, // __tgt_register_lib: LLVM's new driver's, or legacy entries' image
}

// takes is what a registration call is handed: a container of format,
// read as one whatever its head says (its reader says why when it is not
// one), or, where image is set, either such a container or the device
// image itself; where compressed is set, also such a container compressed
// as clang-offload-bundler compresses bundles (CCOB), which the runtime
// decompresses before it reads it.
type takes struct {
	format     container.Format
	image      bool
	compressed bool
}

// as is the format a blob handed to the call is read as: the call's, or
// compressed records of it where the call takes those and the blob's head
// says it is one.
func (reg takes) as(r io.ReaderAt) container.Format {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	if reg.compressed && ccob.IsCompressed(head[:n]) {
		return container.FormatCCOB
	}
	return reg.format
}

// declared is what the blob's compressed images declare they inflate to,
// from headers alone, for the record's check before inflating any.
func declared(kind string, r *io.SectionReader) uint64 {
	return container.Declared(registered[kind].as(r), r, r.Size())
}

// readImages lists the images of a blob of kind as container.Walk meets
// them, inflating against b into temporary files in tempDir. Parts over
// the bytes of a part met before (bundle or OffloadBinary entries sharing
// a payload) are read once (Part.Same); an image is never looked inside.
func readImages(kind string, r *io.SectionReader, b *budget.Budget, tempDir string) ([]*Image, error) {
	reg, ok := registered[kind]
	if !ok {
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	temps := &container.Temps{Dir: tempDir, Pattern: "offload-regcheck-*"}
	defer temps.Close()
	opt := container.WalkOptions{Budget: b, Temps: temps}
	if !reg.image {
		// A compressed one is read as what its records decode to is.
		opt.As, opt.Decoded = reg.as(r), reg.format
	}
	v := &images{format: reg.format, compressed: reg.compressed}
	err := container.Walk(r, r.Size(), "", opt, v)
	return v.out, err
}

// images is the walk's visitor: it reads the images of one blob.
type images struct {
	format     container.Format // what the blob is, unless it is the image itself
	compressed bool             // or such a container compressed (takes)
	out        []*Image
}

func (v *images) Enter(p *container.Part) (bool, error) {
	switch p.Kind {
	case container.Root:
		if p.Format == v.format || v.compressed && p.Format == container.FormatCCOB {
			return true, nil
		}
		// The device image itself, whose target the recorder cannot know:
		// what the ELF says of it, if anything.
		im, err := elfImage(p.Data, p.Size)
		if err == nil {
			im.Target = rawImageTarget(p.Data, p.Size)
			v.out = append(v.out, im)
		}
		return false, err
	case container.Entry:
		return false, v.bundleEntry(p)
	case container.Image:
		return false, v.offloadImage(p)
	case container.FatbinEntry:
		return v.fatbinEntry(p)
	case container.Record: // of a compressed container, read as the container (WalkOptions.Decoded)
		return true, nil
	case container.Payload:
		if p.Parent.Kind == container.Record {
			return true, nil
		}
		// Of a compressed fat-binary entry: nothing else is looked inside.
		return false, v.inflated(p)
	}
	return false, nil
}

// Leave names the entry whose inflation failed, and the compressed
// record whose container is malformed.
func (v *images) Leave(p *container.Part, err error) error {
	switch {
	case err != nil && p.Kind == container.FatbinEntry && p.Tag == nil:
		return fmt.Errorf("%s: %w", p.Fatbin.ArchName(), err)
	case err != nil && p.Kind == container.Record:
		return fmt.Errorf("compressed bundle at offset %d: %w", p.Record.Offset, err)
	}
	return err
}

// once reads the image of p with read, unless its bytes were read
// already: the image returned shares what the first read found, and has
// its own Target.
func (v *images) once(p *container.Part, read func() (*Image, error)) (*Image, error) {
	if first, ok := p.Same.(*Image); ok {
		c := *first
		return &c, nil
	}
	im, err := read()
	if err != nil {
		return nil, err
	}
	p.Tag = im
	c := *im
	return &c, nil
}

// bundleEntry reads a clang offload bundle's entry: a code object for the
// target ID its entry ID ends with. The host's entry, and entries without
// a target ID or bytes, hold no device code.
func (v *images) bundleEntry(p *container.Part) error {
	id, err := targetid.ParseEntryID(p.Name)
	if err != nil || id.Kind == "host" || id.RawTargetID == "" || p.Size == 0 {
		return nil
	}
	im, err := v.once(p, func() (*Image, error) { return elfImage(p.Data, p.Size) })
	if err != nil {
		return fmt.Errorf("bundle entry %s: %w", shown.Name(p.Name), err)
	}
	im.Target = id.RawTargetID
	v.out = append(v.out, im)
	return nil
}

// offloadImage reads an OffloadBinary's image (LLVM's new driver): its
// target is its arch, or its triple for a host-CPU image.
func (v *images) offloadImage(p *container.Part) error {
	b := p.Image
	im, err := v.once(p, func() (*Image, error) { return elfImage(p.Data, p.Size) })
	if err != nil {
		return fmt.Errorf("OffloadBinary %s (%s %s): %w", p.Name, shown.Name(b.Triple()), shown.Name(b.Arch()), err)
	}
	im.Target = b.Arch()
	if im.Target == "" || im.Target == "generic" {
		im.Target = b.Triple()
	}
	v.out = append(v.out, im)
	return nil
}

// fatbinEntry reads an NVIDIA fat binary's cubin or PTX entry (its
// entries never share bytes); a compressed one is inflated by the walk,
// charged to the budget, and read once inflated (inflated).
func (v *images) fatbinEntry(p *container.Part) (bool, error) {
	e := p.Fatbin
	switch {
	case e.Kind != nvfatbin.KindPTX && e.Kind != nvfatbin.KindELF:
		return false, nil
	case e.Compressed:
		return true, nil
	}
	return false, v.cudaImage(e, p.Data, e.Size)
}

// inflated reads a compressed fat-binary entry's image, now inflated: all
// the bytes it inflates to, as an uncompressed entry's stored bytes are
// read. It marks the entry (Tag): what fails now is the image's.
func (v *images) inflated(p *container.Part) error {
	e := p.Parent.Fatbin
	p.Parent.Tag = p
	whole, _, _ := p.Data.Outer()
	return v.cudaImage(e, whole, e.UncompressedSize)
}

// cudaImage reads a fat binary's image: a cubin is sm_XX, by its own
// target, PTX compute_XX.
func (v *images) cudaImage(e *nvfatbin.Entry, data io.ReaderAt, size int64) error {
	var im *Image
	var err error
	if e.Kind == nvfatbin.KindPTX {
		if im, err = ptxImage(io.NewSectionReader(data, 0, size)); err != nil {
			return fmt.Errorf("%s PTX: %w", e.ComputeName(), err)
		}
		im.Target = e.ComputeName()
	} else {
		if im, err = elfImage(data, size); err != nil {
			return fmt.Errorf("%s cubin: %w", e.ArchName(), err)
		}
		// The cubin's own target: the entry of CUDA 11.8's fatbinary has
		// the SM number only, not the "a" of sm_90a (later ones mark it,
		// but also for a cubin of the plain SM given as sm=90a).
		t, err := cubin.Read(data, size)
		switch {
		case err != nil:
			return fmt.Errorf("%s cubin: %w", e.ArchName(), err)
		case t.SM != e.Arch:
			return fmt.Errorf("%s entry holds a cubin for %s", e.ArchName(), t)
		}
		im.Target = t.String()
	}
	v.out = append(v.out, im)
	return nil
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
