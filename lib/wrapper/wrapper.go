// Package wrapper generates host code that embeds offload device images and
// registers them with an offload runtime at program start, as LLVM's
// llvm-offload-wrapper (LLVM 22) and the older clang-offload-wrapper do.
//
// Three runtimes are supported:
//
//   - OpenMP: a __tgt_device_image array and __tgt_bin_desc descriptor passed to
//     __tgt_register_lib by a constructor;
//   - CUDA: a fat-binary wrapper (magic 0x466243b1) registered with
//     __cudaRegisterFatBinary, plus every kernel and variable listed in the
//     host's offload entries;
//   - HIP: the same with magic 0x48495046 and the __hipRegister* functions,
//     surfaces and textures included.
//
// Two offload-entry ABIs exist: LLVM20 (LLVM >= 20: one llvm_offload_entries
// section of 56-byte entries) and Legacy (LLVM <= 19: omp_/cuda_/hip_
// offloading_entries sections of the 32-byte __tgt_offload_entry). The
// Legacy OpenMP layout is the one of clang-offload-wrapper (LLVM <= 14 and the
// AMD variant), including __tgt_image_info records for --offload-arch.
//
// The same registration can be written in five forms: LLVM bitcode and IR
// text (EmitBC and EmitLL, from one lib/ir module, written for the LLVM
// of Options.LLVM; clang compiles both),
// portable C (EmitC) and GNU assembly (EmitAsm), both
// compiled by gcc or clang with the images included through .incbin, and a
// finished ELF relocatable object for x86-64 or AArch64 (EmitObj), which
// needs no compiler at all. All output is deterministic.
//
// Every form is lowered from one plan (plan.go, calls.go, records.go): the
// symbols and sections, the fields of the constant structs, and the
// runtime calls of the constructor, the destructor and the loop over the
// offload entries, with their arguments. The IR module
// (module.go, module_fatbin.go) and C (c.go) lower the calls themselves;
// machine.go writes the functions once for the x86-64 and AArch64 encoders
// (x86.go, arm64.go), whose instructions EmitAsm prints and EmitObj encodes.
//
// Layout choices where LLVM leaves room:
//
//   - LLVM20 IR is llvm-offload-wrapper-22's module exactly. The other forms
//     define the same symbols in the same sections; images are 8-byte aligned
//     (.hip_fatbin 4096, as clang aligns HIP fat binaries).
//   - Legacy OpenMP follows clang-offload-wrapper: images in .rodata,
//     constructor and destructor of priority 1, __tgt_image_info records
//     (.offload_image_info[.N], strings __offload_arch[.N] in
//     .offload_arch_list) registered through a weak __tgt_register_image_info
//     that is called only when the runtime defines it. Legacy CUDA and HIP
//     follow LLVM 19: priority 101 and atexit, managed variables not
//     registered.
//   - The legacy dummy entry is a weak hidden definition, so two wrapper
//     objects can share a link.
//   - The C form registers priorities below 101, which compilers reserve,
//     through .init_array.N / .fini_array.N entries.
package wrapper

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/offloadkind"
)

// Kind is the offload runtime that registers the images: OpenMP, CUDA or
// HIP. It is the module's one offload-kind type; its value is the kind
// field of the offload entries the wrapper emits and scans.
type Kind = offloadkind.Kind

// The kinds the wrapper registers.
const (
	OpenMP = offloadkind.OpenMP
	CUDA   = offloadkind.CUDA
	HIP    = offloadkind.HIP
)

// ParseKind maps the --kind spellings openmp, cuda and hip to a Kind; the
// wrapper registers no other kind.
func ParseKind(s string) (Kind, error) {
	switch k := offloadkind.Parse(s); k {
	case OpenMP, CUDA, HIP:
		return k, nil
	}
	return 0, fmt.Errorf("%w %q (want openmp, cuda or hip)", ErrUnknownKind, s)
}

// EntryABI selects the layout of the host's offload entries.
type EntryABI int

const (
	// LLVM20 is the ABI of LLVM >= 20 (the default).
	LLVM20 EntryABI = iota
	// Legacy is the ABI of LLVM <= 19.
	Legacy
)

// ParseEntryABI maps the --entries spellings llvm20 and legacy to an EntryABI.
func ParseEntryABI(s string) (EntryABI, error) {
	switch s {
	case "llvm20":
		return LLVM20, nil
	case "legacy":
		return Legacy, nil
	}
	return 0, fmt.Errorf("wrapper: unknown entry ABI %q (want llvm20 or legacy)", s)
}

func (a EntryABI) String() string {
	if a == Legacy {
		return "legacy"
	}
	return "llvm20"
}

// Image is one device image to embed.
type Image struct {
	// Data holds the image bytes; Size is their number.
	Data io.ReaderAt
	Size int64
	// Path names a file holding exactly these bytes. The C and assembly forms
	// include it with .incbin (relative paths resolve against the compiler's
	// working directory); without a Path the bytes are written inline.
	Path string
	// Arch is the --offload-arch target ID of the image (Legacy OpenMP only).
	Arch string
}

// Options select what to generate.
type Options struct {
	Kind Kind
	// Triple is the host target triple; empty means DefaultTriple.
	Triple string
	ABI    EntryABI
	// AnyImage registers whatever bytes an image holds, empty or not of
	// the kind's format, as llvm-offload-wrapper does; otherwise such an
	// image is an error (ErrEmptyImage, ErrWrongImage), because the
	// runtime would only reject it when the program starts.
	AnyImage bool
	// WholeImages registers every image whole, an OffloadBinary too, as
	// clang-offload-wrapper 14 (which predates OffloadBinary) does; else
	// the image inside an OffloadBinary is registered, as LLVM 22 does.
	WholeImages bool
	// Packages registers OpenMP images as clang-linker-wrapper of LLVM 15–19
	// does: every OffloadBinary of an input (a package of several holds them
	// back to back) becomes one image, registered whole and kept in
	// .llvm.offloading. libomptarget of those releases reads the image's
	// arch from the OffloadBinary to choose the image for the device, and
	// llvm-objdump --offloading lists the program's images. Without it a
	// package registers its first image only.
	Packages bool
	// SplitPackages registers OpenMP images as clang-linker-wrapper of LLVM
	// 20 and later does: every OffloadBinary of an input becomes one image,
	// kept whole in .llvm.offloading, and the image inside it is registered
	// (those releases' libomptarget reads the ELF itself). Without it (or
	// Packages) a package of several binaries registers its first image only.
	SplitPackages bool
	// LLVM is the oldest LLVM major version that must read the bitcode or
	// IR text (EmitBC, EmitLL); 0 picks the oldest the ABI serves: 14 for
	// Legacy (typed pointers, which every later LLVM reads too), 20 for
	// LLVM20 (written as LLVM 22 writes it).
	LLVM int
}

// DefaultTriple is the host triple used when Options.Triple is empty; it is
// what llvm-offload-wrapper-22 defaults to on x86-64 Linux.
const DefaultTriple = "x86_64-pc-linux-gnu"

var (
	// ErrUnknownKind marks a Kind that is not OpenMP, CUDA or HIP.
	ErrUnknownKind = errors.New("wrapper: unknown offload kind")
	// ErrNoImages marks a call without images.
	ErrNoImages = errors.New("wrapper: no input images")
	// ErrImageCount marks CUDA or HIP with more than one image.
	ErrImageCount = errors.New("wrapper: CUDA / HIP offloading uses a single fatbinary or offload bundle")
	// ErrEmptyImage marks an image of size 0.
	ErrEmptyImage = errors.New("wrapper: empty image")
	// ErrWrongImage marks an image that is not what the kind expects.
	ErrWrongImage = errors.New("wrapper: image does not suit the offload kind")
	// ErrTarget marks a triple the requested form cannot target.
	ErrTarget = errors.New("wrapper: unsupported target")
	// ErrArch marks target IDs given for some images only, or with the
	// LLVM20 ABI.
	ErrArch = errors.New("wrapper: bad --offload-arch use")
	// ErrLLVM marks an Options.LLVM the IR forms are not written for.
	ErrLLVM = errors.New("wrapper: unsupported reader LLVM version")
)

// ImageError reports a defect of one input image.
type ImageError struct {
	Index int    // position among the images
	Path  string // Image.Path, if any
	Msg   string
	Err   error // one of the sentinels above, or a parse error
}

func (e *ImageError) Error() string {
	name := fmt.Sprintf("image %d", e.Index)
	if e.Path != "" {
		name = e.Path
	}
	return fmt.Sprintf("wrapper: %s: %s", name, e.Msg)
}

func (e *ImageError) Unwrap() error { return e.Err }

// checkOptions validates the kind, image count and target IDs common to all
// forms, and returns the triple to use.
func checkOptions(imgs []Image, o Options) (triple, error) {
	switch o.Kind {
	case OpenMP, CUDA, HIP:
	default:
		return triple{}, fmt.Errorf("%w %v", ErrUnknownKind, o.Kind)
	}
	if o.ABI != LLVM20 && o.ABI != Legacy {
		return triple{}, fmt.Errorf("wrapper: unknown entry ABI %d", int(o.ABI))
	}
	if len(imgs) == 0 {
		return triple{}, ErrNoImages
	}
	if o.Kind != OpenMP && len(imgs) > 1 {
		return triple{}, ErrImageCount
	}
	withArch := 0
	for _, im := range imgs {
		if im.Arch != "" {
			withArch++
		}
		if strings.ContainsAny(im.Arch, "\x00\n") {
			return triple{}, fmt.Errorf("%w: target ID %q has a NUL or newline", ErrArch, im.Arch)
		}
	}
	if withArch != 0 {
		if o.Kind != OpenMP || o.ABI != Legacy {
			return triple{}, fmt.Errorf("%w: target IDs are only recorded for OpenMP with the legacy ABI", ErrArch)
		}
		if withArch != len(imgs) {
			return triple{}, fmt.Errorf("%w: give a target ID for every image or for none", ErrArch)
		}
	}
	name := o.Triple
	if name == "" {
		name = DefaultTriple
	}
	t, err := parseTriple(name)
	if err == nil && t.coff && o.ABI == Legacy {
		err = targetErr("'%s': COFF hosts need the LLVM20 entry ABI", name)
	}
	return t, err
}
