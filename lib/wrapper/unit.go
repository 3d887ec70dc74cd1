package wrapper

import (
	"debug/elf"
	"fmt"
	"strings"
)

// unit is the section-level form of a plan, shared by EmitAsm and EmitObj:
// data objects with their symbols and pointers, and the assembled code.
type unit struct {
	p        *plan
	x86      bool
	sections []*usec
	code     []insn
}

// usec is one output section.
type usec struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	align int64
	objs  []*uobj
	text  bool // holds the code
}

// uobj is a data object; name is its symbol ("" for padding).
type uobj struct {
	name   string
	global bool // a weak hidden definition (the legacy dummy entry)
	parts  []upart
}

// upart is a piece of an object: an integer of 1-8 bytes, a pointer to a
// symbol, zero bytes, or an image streamed from its reader.
type upart struct {
	size int // integer width; 0 for the other forms
	val  uint64
	ptr  string
	add  int64
	zero int64
	blob *planImage
}

func (o *uobj) size(ptrSize int) int64 {
	var n int64
	for _, pt := range o.parts {
		switch {
		case pt.blob != nil:
			n += pt.blob.img.Size
		case pt.ptr != "":
			n += int64(ptrSize)
		case pt.zero > 0:
			n += pt.zero
		default:
			n += int64(pt.size)
		}
	}
	return n
}

func intPart(size int, v uint64) upart    { return upart{size: size, val: v} }
func ptrPart(sym string, add int64) upart { return upart{ptr: sym, add: add} }

// planUnit plans the registration of imgs and builds its unit.
func planUnit(imgs []Image, o Options) (*unit, error) {
	p, err := newPlan(imgs, o)
	if err != nil {
		return nil, err
	}
	return newUnit(p)
}

// newUnit builds the unit of p for an architecture with an encoder.
func newUnit(p *plan) (*unit, error) {
	if err := p.triple.nativeELF(); err != nil {
		return nil, err
	}
	var code []insn
	switch p.triple.machine {
	case "x86_64":
		code = x86Funcs(p)
	case "aarch64":
		code = a64Funcs(p)
	default:
		return nil, targetErr("'%s': assembly and objects are generated for x86_64 and aarch64 hosts only", p.triple.str)
	}
	u := &unit{p: p, x86: p.triple.machine == "x86_64", code: code}
	u.entriesSection()
	if p.kind == OpenMP {
		u.openMP()
	} else {
		u.fatbin()
	}
	textAlign := int64(4)
	if u.x86 {
		textAlign = 16
	}
	u.sections = append(u.sections, &usec{name: ".text.startup", typ: elf.SHT_PROGBITS,
		flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: textAlign, text: true})
	u.add(fmt.Sprintf(".init_array.%d", p.ctorPrio), elf.SHT_INIT_ARRAY, elf.SHF_ALLOC|elf.SHF_WRITE, 8,
		&uobj{parts: []upart{ptrPart(p.reg, 0)}})
	if p.dtorPrio != 0 {
		u.add(fmt.Sprintf(".fini_array.%d", p.dtorPrio), elf.SHT_FINI_ARRAY, elf.SHF_ALLOC|elf.SHF_WRITE, 8,
			&uobj{parts: []upart{ptrPart(p.unreg, 0)}})
	}
	u.add(".note.GNU-stack", elf.SHT_PROGBITS, 0, 1)
	return u, nil
}

func (u *unit) add(name string, typ elf.SectionType, flags elf.SectionFlag, align int64, objs ...*uobj) *usec {
	s := &usec{name: name, typ: typ, flags: flags, align: align, objs: objs}
	u.sections = append(u.sections, s)
	return s
}

// section returns the section called name, adding it if needed.
func (u *unit) section(name string, typ elf.SectionType, flags elf.SectionFlag, align int64) *usec {
	for _, s := range u.sections {
		if s.name == name {
			s.align = max(s.align, align)
			return s
		}
	}
	return u.add(name, typ, flags, align)
}

// place appends o to s, padding first to align.
func (u *unit) place(s *usec, o *uobj, align int64) {
	var off int64
	for _, x := range s.objs {
		off += x.size(8)
	}
	if pad := (align - off%align) % align; pad > 0 {
		s.objs = append(s.objs, &uobj{parts: []upart{{zero: pad}}})
	}
	s.objs = append(s.objs, o)
}

func (u *unit) entriesSection() {
	l := u.p.entries
	u.add(l.section, elf.SHT_PROGBITS, elf.SHF_ALLOC, 8, &uobj{name: l.dummy, global: !l.dummyLocal})
}

func (u *unit) image(im *planImage) {
	s := u.section(im.section, elf.SectionType(im.secType), elf.SHF_ALLOC, im.align)
	u.place(s, &uobj{name: im.name, parts: []upart{{blob: im}}}, im.align)
}

func (u *unit) openMP() {
	p := u.p
	for i := range p.images {
		u.image(&p.images[i])
	}
	arr := &uobj{name: p.imagesArr}
	for _, im := range p.images {
		arr.parts = append(arr.parts, recordParts(p.imageRow(im))...)
	}
	desc := &uobj{name: p.desc, parts: recordParts(p.descFields())}
	rel := u.add(".data.rel.ro", elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8, arr, desc)
	if len(p.infos) == 0 {
		return
	}
	names := u.add(".offload_arch_list", elf.SHT_PROGBITS, elf.SHF_ALLOC, 1)
	for i, in := range p.infos {
		names.objs = append(names.objs, &uobj{name: in.archName, parts: []upart{{blob: stringImage(in.arch)}}})
		rel.objs = append(rel.objs, &uobj{name: in.name, parts: recordParts(p.infoFields(i))})
	}
}

func (u *unit) fatbin() {
	p := u.p
	u.image(&p.fatbin)
	u.add(p.wrapSec, elf.SHT_PROGBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8, &uobj{name: p.wrapper,
		parts: recordParts(p.wrapperFields())})
	u.add(".bss", elf.SHT_NOBITS, elf.SHF_ALLOC|elf.SHF_WRITE, 8, &uobj{name: p.handle, parts: []upart{{zero: 8}}})
}

// recordParts lays out a record with 8-byte pointers: 32-bit integers,
// padding before a pointer, null pointers as zero.
func recordParts(fields []field) []upart {
	var parts []upart
	off := 0
	for _, f := range fields {
		if f.typ == tI32 {
			parts = append(parts, intPart(4, uint64(uint32(f.v))))
			off += 4
			continue
		}
		if off%8 != 0 {
			parts = append(parts, intPart(4, 0))
			off += 4
		}
		if f.sym == "" {
			parts = append(parts, intPart(8, 0))
		} else {
			parts = append(parts, ptrPart(f.sym, f.off))
		}
		off += 8
	}
	return parts
}

// stringImage is a NUL-terminated string as an in-memory image.
func stringImage(s string) *planImage {
	r := strings.NewReader(s + "\x00")
	return &planImage{img: Image{Data: r, Size: r.Size()}}
}

// defined reports the symbols the unit defines.
func (u *unit) defined() map[string]bool {
	d := map[string]bool{}
	for _, s := range u.sections {
		for _, o := range s.objs {
			if o.name != "" {
				d[o.name] = true
			}
		}
	}
	for _, in := range u.code {
		if in.label != "" {
			d[in.label] = true
		}
	}
	return d
}

// extern is an undefined symbol the unit refers to.
type extern struct {
	name         string
	weak, hidden bool
}

// externs lists the undefined symbols in order of first reference.
func (u *unit) externs() []extern {
	def := u.defined()
	seen := map[string]bool{}
	weak := map[string]bool{}
	for _, st := range u.p.ctor {
		weak[st.fn] = st.ifDefined
	}
	var out []extern
	note := func(s string) {
		if s == "" || def[s] || seen[s] {
			return
		}
		seen[s] = true
		l := u.p.entries
		out = append(out, extern{name: s, weak: weak[s], hidden: s == l.start || s == l.stop})
	}
	for _, s := range u.sections {
		for _, o := range s.objs {
			for _, pt := range o.parts {
				note(pt.ptr)
			}
		}
	}
	for _, in := range u.code {
		if in.fix != nil {
			note(in.fix.sym)
		}
	}
	return out
}

// isFunc tells function labels from local .L labels.
func isFunc(label string) bool { return label != "" && !strings.HasPrefix(label, ".L") }
