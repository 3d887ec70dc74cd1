package wrapper

import "strconv"

// plan is everything the generators need to know, derived once from the
// options and images: symbol and section names, priorities, and the layout
// of the host's offload entries. All forms emit the same plan.
type plan struct {
	kind   Kind
	abi    EntryABI
	triple triple
	// packages: OpenMP images are whole OffloadBinaries in .llvm.offloading.
	packages bool

	entries entryLayout

	// OpenMP
	images    []planImage
	imagesArr string // .omp_offloading.device_images
	desc      string // .omp_offloading.descriptor
	infos     []planInfo

	// CUDA / HIP
	fatbin   planImage
	wrapper  string // .fatbin_wrapper
	wrapSec  string // .nvFatBinSegment / .hipFatBinSegment
	magic    uint32
	handle   string // .cuda.binary_handle
	globals  string // .cuda.globals_reg
	rt       runtimeNames
	perEntry entryCalls

	reg, unreg string
	// ctor and dtor are the calls of the registration's constructor and
	// destructor.
	ctor, dtor []regStep
	ctorPrio   int
	dtorPrio   int // 0: unregistration goes through atexit
}

// entryLayout describes the host's offload entries for one ABI and kind.
type entryLayout struct {
	section, start, stop, dummy string
	// dummyLocal is true for LLVM20's internal dummy; the legacy dummy is a
	// hidden weak definition.
	dummyLocal bool
	size       int64 // bytes per entry with 64-bit pointers
	// Offsets of the fields (64-bit pointers); kindOff < 0 where entries
	// carry no kind (legacy: one section per kind), auxOff < 0 where they
	// have no aux_addr.
	kindOff, flagsOff, addrOff, nameOff, sizeOff, dataOff, auxOff int64
}

type planImage struct {
	name    string
	section string
	secType uint32 // ELF section type of section
	align   int64  // alignment of the image in the C, assembly and object forms
	img     Image
	span    span
}

// SHT_LLVM_OFFLOADING is the ELF section type of .llvm.offloading.
const shtLLVMOffloading = 0x6fff4c0b

type planInfo struct {
	name, archName, arch string
}

// runtimeNames are the runtime functions a CUDA or HIP wrapper calls to
// register its fat binary.
type runtimeNames struct {
	regFatbin, regFatbinEnd, unregFatbin string
	callEnd                              bool // CUDA calls __cudaRegisterFatBinaryEnd
}

// uniq is LLVM's naming of repeated globals: name, name.1, name.2, ...
func uniq(name string, i int) string {
	if i == 0 {
		return name
	}
	return name + "." + strconv.Itoa(i)
}

// newPlan validates imgs and o and derives the plan.
func newPlan(imgs []Image, o Options) (*plan, error) {
	t, err := checkOptions(imgs, o)
	if err != nil {
		return nil, err
	}
	if (o.Packages || o.SplitPackages) && o.Kind == OpenMP {
		if imgs, err = splitPackages(imgs); err != nil {
			return nil, err
		}
		// LLVM 15-19 register each binary whole; 20 and later the image
		// inside it.
		o.WholeImages = o.WholeImages || o.Packages
	}
	p := &plan{kind: o.Kind, abi: o.ABI, triple: t, packages: o.Packages}
	p.entries = layoutFor(o.Kind, o.ABI)
	spans := make([]span, len(imgs))
	for i, im := range imgs {
		if spans[i], err = inspect(i, im, o.Kind, o.AnyImage); err != nil {
			return nil, err
		}
		if o.WholeImages {
			spans[i] = span{0, im.Size}
		}
	}
	if o.Kind == OpenMP {
		p.planOpenMP(imgs, spans)
	} else {
		p.planFatbin(imgs[0], spans[0])
	}
	return p, nil
}

func layoutFor(k Kind, abi EntryABI) entryLayout {
	var l entryLayout
	if abi == LLVM20 {
		l = entryLayout{section: "llvm_offload_entries", start: "__start_llvm_offload_entries",
			stop: "__stop_llvm_offload_entries", dummy: "__dummy.llvm_offload_entries", dummyLocal: true}
	} else {
		prefix := map[Kind]string{OpenMP: "omp", CUDA: "cuda", HIP: "hip"}[k]
		sec := prefix + "_offloading_entries"
		l = entryLayout{section: sec, start: "__start_" + sec, stop: "__stop_" + sec,
			dummy: "__dummy." + prefix + "_offloading.entry"}
	}
	off, size := entryTypes[abi].layout()
	field := func(name string) int64 {
		if o, ok := off[name]; ok {
			return o
		}
		return -1
	}
	l.size, l.kindOff, l.flagsOff, l.addrOff = size, field("kind"), field("flags"), field("addr")
	l.nameOff, l.sizeOff, l.dataOff, l.auxOff = field("name"), field("size"), field("data"), field("aux_addr")
	return l
}

func (p *plan) planOpenMP(imgs []Image, spans []span) {
	sec, typ := ".llvm.offloading", uint32(shtLLVMOffloading)
	if p.abi == Legacy && !p.packages {
		sec, typ = ".rodata", 1 // SHT_PROGBITS
	}
	for i, im := range imgs {
		p.images = append(p.images, planImage{name: uniq(".omp_offloading.device_image", i),
			section: sec, secType: typ, align: 8, img: im, span: spans[i]})
		if im.Arch != "" {
			p.infos = append(p.infos, planInfo{name: uniq(".offload_image_info", i),
				archName: uniq("__offload_arch", i), arch: im.Arch})
		}
	}
	p.imagesArr = ".omp_offloading.device_images"
	p.desc = ".omp_offloading.descriptor"
	p.reg = ".omp_offloading.descriptor_reg"
	p.unreg = ".omp_offloading.descriptor_unreg"
	p.ctorPrio = 101
	if p.abi == Legacy {
		p.ctorPrio, p.dtorPrio = 1, 1
	}
	p.planOpenMPCalls()
}

func (p *plan) planFatbin(im Image, sp span) {
	hip := p.kind == HIP
	pre, rt := "cuda", "__cuda"
	// The fatbinary header holds 64-bit fields; HIP bundles are laid out for
	// 4096-byte alignment, as clang's own .hip_fatbin is.
	p.fatbin = planImage{name: ".fatbin_image", section: ".nv_fatbin", secType: 1, align: 8, img: im, span: sp}
	p.wrapSec, p.magic = ".nvFatBinSegment", 0x466243b1
	if hip {
		pre, rt = "hip", "__hip"
		p.fatbin.section, p.fatbin.align = ".hip_fatbin", 4096
		p.wrapSec, p.magic = ".hipFatBinSegment", 0x48495046
	}
	p.wrapper = ".fatbin_wrapper"
	p.handle = "." + pre + ".binary_handle"
	p.globals = "." + pre + ".globals_reg"
	p.reg = "." + pre + ".fatbin_reg"
	p.unreg = "." + pre + ".fatbin_unreg"
	p.ctorPrio = 101
	p.rt = runtimeNames{
		regFatbin: rt + "RegisterFatBinary", regFatbinEnd: "__cudaRegisterFatBinaryEnd",
		unregFatbin: rt + "UnregisterFatBinary", callEnd: !hip,
	}
	p.perEntry = planEntryCalls(rt, p.abi, hip)
	p.planFatbinCalls()
}
