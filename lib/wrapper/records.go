package wrapper

import "strings"

// The constant structs of a registration, field by field, written once and
// laid out by every back-end: the OpenMP device images and descriptor, the
// image infos of clang-offload-wrapper, and the CUDA/HIP fat binary
// wrapper. Names of the globals are the plan's.

// field is one field of a record: an integer of typ, or a pointer to
// sym+off, null where sym is "".
type field struct {
	typ valType
	v   int64
	sym string
	off int64
	hex bool // C writes it in hex (a magic number)
}

func i32Field(v int64) field               { return field{typ: tI32, v: v} }
func ptrField(sym string, off int64) field { return field{typ: tPtr, sym: sym, off: off} }

// imageRow is a __tgt_device_image: the registered bytes of im and the
// bounds of the host's entries.
func (p *plan) imageRow(im planImage) []field {
	l := p.entries
	return []field{ptrField(im.name, im.span.begin), ptrField(im.name, im.span.end), ptrField(l.start, 0), ptrField(l.stop, 0)}
}

// descFields is the __tgt_bin_desc.
func (p *plan) descFields() []field {
	l := p.entries
	return []field{i32Field(int64(len(p.images))), ptrField(p.imagesArr, 0), ptrField(l.start, 0), ptrField(l.stop, 0)}
}

// infoFields is the __tgt_image_info of image i: version 1, the image's
// number, the number of images, its target ID and no compile options.
func (p *plan) infoFields(i int) []field {
	return []field{i32Field(1), i32Field(int64(i)), i32Field(int64(len(p.infos))), ptrField(p.infos[i].archName, 0), ptrField("", 0)}
}

// wrapperFields is the fat binary wrapper: magic, version 1, the fat
// binary and a reserved null.
func (p *plan) wrapperFields() []field {
	magic := i32Field(int64(int32(p.magic)))
	magic.hex = true
	return []field{magic, i32Field(1), ptrField(p.fatbin.name, 0), ptrField("", 0)}
}

// recType is a record's struct type, as C and the IR spell it.
type recType struct {
	name   string // the struct tag in C, the struct's name in the IR
	irName string // the IR's name where it differs
	fields []recField
}

type recField struct {
	c   string // the C declaration
	typ valType
	// to names the pointee of a pointer for LLVM 14's typed pointers: a
	// record type, or "entry" for the offload entry; "" is i8.
	to string
}

// entryTypes are the offload entries of the two ABIs: LLVM >= 20's
// (llvm/Frontend/Offloading/Utility.h) and LLVM <= 19's.
var entryTypes = map[EntryABI]recType{
	LLVM20: {"__tgt_offload_entry", "struct.__tgt_offload_entry", []recField{{"uint64_t reserved", tI64, ""},
		{"uint16_t version", tI16, ""}, {"uint16_t kind", tI16, ""}, {"uint32_t flags", tI32, ""},
		{"void *addr", tPtr, ""}, {"char *name", tPtr, ""}, {"uint64_t size", tI64, ""},
		{"uint64_t data", tI64, ""}, {"void *aux_addr", tPtr, ""}}},
	Legacy: {"__tgt_offload_entry", "", []recField{{"void *addr", tPtr, ""}, {"char *name", tPtr, ""},
		{"size_t size", tI64, ""}, {"int32_t flags", tI32, ""}, {"int32_t data", tI32, ""}}},
}

// layout gives the offset of every field by its C name, each aligned to
// its size (64-bit pointers), and the size of the struct.
func (t recType) layout() (map[string]int64, int64) {
	off := map[string]int64{}
	var at, align int64 = 0, 1
	for _, f := range t.fields {
		n := [...]int64{tPtr: 8, tI16: 2, tI32: 4, tI64: 8}[f.typ]
		at = (at + n - 1) / n * n
		words := strings.Fields(f.c)
		off[strings.TrimLeft(words[len(words)-1], "*")] = at
		at += n
		align = max(align, n)
	}
	return off, (at + align - 1) / align * align
}

var (
	deviceImageType = recType{"__tgt_device_image", "", []recField{{"void *image_start", tPtr, ""},
		{"void *image_end", tPtr, ""}, {"struct __tgt_offload_entry *entries_begin", tPtr, "entry"},
		{"struct __tgt_offload_entry *entries_end", tPtr, "entry"}}}
	binDescType = recType{"__tgt_bin_desc", "", []recField{{"int32_t num_device_images", tI32, ""},
		{"struct __tgt_device_image *device_images", tPtr, deviceImageType.name},
		{"struct __tgt_offload_entry *host_entries_begin", tPtr, "entry"},
		{"struct __tgt_offload_entry *host_entries_end", tPtr, "entry"}}}
	imageInfoType = recType{"__tgt_image_info", "", []recField{{"int32_t version", tI32, ""},
		{"int32_t image_number", tI32, ""}, {"int32_t number_images", tI32, ""},
		{"const char *offload_arch", tPtr, ""}, {"const char *compile_opts", tPtr, ""}}}
	fatbinWrapperType = recType{"fatbin_wrapper", "", []recField{{"int32_t magic", tI32, ""},
		{"int32_t version", tI32, ""}, {"const void *data", tPtr, ""}, {"void *reserved", tPtr, ""}}}
)
