package wrapper

import (
	"debug/elf"
	"encoding/binary"
	"io"

	"github.com/rules-offload/rules_offload/lib/relobj"
)

// EmitObj writes the registration as an ELF relocatable object for an
// x86-64 or AArch64 host, so no compiler is needed. Image bytes are copied
// from their readers while the object is written.
func EmitObj(w io.Writer, imgs []Image, o Options) error {
	u, err := planUnit(imgs, o)
	if err != nil {
		return err
	}
	f, err := u.object()
	if err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}

func (u *unit) object() (*relobj.File, error) {
	m, abs64 := elf.EM_X86_64, uint32(elf.R_X86_64_64)
	if !u.x86 {
		m, abs64 = elf.EM_AARCH64, uint32(elf.R_AARCH64_ABS64)
	}
	f, err := relobj.New(m)
	if err != nil {
		return nil, err
	}
	code, err := assemble(u.code, u.x86)
	if err != nil {
		return nil, err
	}
	syms := map[string]*relobj.Symbol{}
	secs := map[*usec]*relobj.Section{}
	type ptrAt struct {
		sec *relobj.Section
		off int64
		sym string
		add int64
	}
	var ptrs []ptrAt
	for _, s := range u.sections {
		rs := f.AddSection(s.name, s.typ, s.flags, uint64(s.align))
		secs[s] = rs
		if s.text {
			rs.Write(code.code)
			u.codeSymbols(f, rs, code, syms)
			continue
		}
		for _, o := range s.objs {
			start := rs.Len()
			for _, pt := range o.parts {
				switch {
				case pt.blob != nil:
					if err := rs.AppendReader(pt.blob.img.Data, pt.blob.img.Size); err != nil {
						return nil, err
					}
				case pt.ptr != "":
					ptrs = append(ptrs, ptrAt{rs, rs.Len(), pt.ptr, pt.add})
					rs.Zero(8)
				case pt.zero > 0:
					rs.Zero(pt.zero)
				default:
					b := make([]byte, 8)
					binary.LittleEndian.PutUint64(b, pt.val)
					if _, err := rs.Write(b[:pt.size]); err != nil {
						return nil, err
					}
				}
			}
			if o.name == "" {
				continue
			}
			sym := relobj.Symbol{Name: o.name, Bind: elf.STB_LOCAL, Type: elf.STT_OBJECT, Section: rs,
				Value: uint64(start), Size: uint64(rs.Len() - start)}
			if o.global {
				sym.Bind, sym.Vis = elf.STB_WEAK, elf.STV_HIDDEN
			}
			syms[o.name] = f.AddSymbol(sym)
		}
	}
	if !u.x86 {
		u.mappingSymbols(f, secs)
	}
	for _, e := range u.externs() {
		sym := relobj.Symbol{Name: e.name, Bind: elf.STB_GLOBAL}
		if e.weak {
			sym.Bind = elf.STB_WEAK
		}
		if e.hidden {
			sym.Vis = elf.STV_HIDDEN
		}
		syms[e.name] = f.AddSymbol(sym)
	}
	for _, pa := range ptrs {
		pa.sec.AddReloc(uint64(pa.off), syms[pa.sym], abs64, pa.add)
	}
	for _, s := range u.sections {
		if s.text {
			for _, r := range code.relocs {
				secs[s].AddReloc(uint64(r.off), syms[r.sym], r.rtype, r.add)
			}
		}
	}
	return f, nil
}

// codeSymbols defines a local function symbol for every function label,
// sized up to the next function or the end of the code.
func (u *unit) codeSymbols(f *relobj.File, rs *relobj.Section, code *assembled, syms map[string]*relobj.Symbol) {
	var names []string
	for _, in := range u.code {
		if isFunc(in.label) {
			names = append(names, in.label)
		}
	}
	for i, n := range names {
		start := code.labels[n]
		end := int64(len(code.code))
		if i+1 < len(names) {
			end = code.labels[names[i+1]]
		}
		syms[n] = f.AddSymbol(relobj.Symbol{Name: n, Bind: elf.STB_LOCAL, Type: elf.STT_FUNC, Section: rs,
			Value: uint64(start), Size: uint64(end - start)})
	}
}

// mappingSymbols adds the AArch64 ELF mapping symbols assemblers emit: $x
// where code starts and $d where data starts, for disassemblers.
func (u *unit) mappingSymbols(f *relobj.File, secs map[*usec]*relobj.Section) {
	for _, s := range u.sections {
		rs := secs[s]
		if rs.Len() == 0 {
			continue
		}
		name := "$d"
		if s.text {
			name = "$x"
		}
		f.AddSymbol(relobj.Symbol{Name: name, Bind: elf.STB_LOCAL, Type: elf.STT_NOTYPE, Section: rs})
	}
}
