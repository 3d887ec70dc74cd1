package wrapper

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
	fields []recField
}

type recField struct {
	c   string // the C declaration
	typ valType
	// to names the pointee of a pointer for LLVM 14's typed pointers: a
	// record type, or "entry" for the offload entry; "" is i8.
	to string
}

var (
	deviceImageType = recType{"__tgt_device_image", []recField{{"void *image_start", tPtr, ""},
		{"void *image_end", tPtr, ""}, {"struct __tgt_offload_entry *entries_begin", tPtr, "entry"},
		{"struct __tgt_offload_entry *entries_end", tPtr, "entry"}}}
	binDescType = recType{"__tgt_bin_desc", []recField{{"int32_t num_device_images", tI32, ""},
		{"struct __tgt_device_image *device_images", tPtr, deviceImageType.name},
		{"struct __tgt_offload_entry *host_entries_begin", tPtr, "entry"},
		{"struct __tgt_offload_entry *host_entries_end", tPtr, "entry"}}}
	imageInfoType = recType{"__tgt_image_info", []recField{{"int32_t version", tI32, ""},
		{"int32_t image_number", tI32, ""}, {"int32_t number_images", tI32, ""},
		{"const char *offload_arch", tPtr, ""}, {"const char *compile_opts", tPtr, ""}}}
	fatbinWrapperType = recType{"fatbin_wrapper", []recField{{"int32_t magic", tI32, ""},
		{"int32_t version", tI32, ""}, {"const void *data", tPtr, ""}, {"void *reserved", tPtr, ""}}}
)
