package wrapper

import (
	"strings"

	"github.com/rules-offload/rules_offload/lib/ir"
)

// modBuilder builds the ir.Module of a plan, global by global in the order
// LLVM creates them.
type modBuilder struct {
	p       *plan
	m       *ir.Module
	entryTy *ir.Type
	start   *ir.Global // the linker-defined bounds of the entries
	stop    *ir.Global
	globals map[string]*ir.Global // by name, for the records' pointers
	types   map[string]*ir.Type   // the record types made so far
}

var voidFn = ir.Func(ir.Void)

func buildModule(p *plan) *ir.Module {
	id := "offload.wrapper.module"
	if p.abi == Legacy && p.kind == OpenMP {
		id = "offload.wrapper.object"
	}
	b := &modBuilder{p: p, m: &ir.Module{SourceFilename: id, Triple: p.triple.str}, globals: map[string]*ir.Global{},
		types: map[string]*ir.Type{}}
	b.entryTy = b.recordType(entryTypes[p.abi])
	if p.kind == OpenMP {
		b.openMP()
	} else {
		b.fatbin()
	}
	return b.m
}

// constant adds an internal constant global initialized with init.
func (b *modBuilder) constant(name string, init ir.Constant) *ir.Global {
	g := b.m.AddGlobal(name, init.Type())
	g.Constant, g.Linkage, g.Init = true, ir.Internal, init
	b.globals[name] = g
	return g
}

// recordType is the IR type of t, with the pointees LLVM 14's typed
// pointers need.
func (b *modBuilder) recordType(t recType) *ir.Type {
	fields := make([]*ir.Type, len(t.fields))
	for i, f := range t.fields {
		switch {
		case f.typ != tPtr:
			fields[i] = irTypes[f.typ]
		case f.to == "entry":
			fields[i] = ir.PtrTo(b.entryTy)
		case f.to != "":
			fields[i] = ir.PtrTo(b.types[f.to])
		default:
			fields[i] = ir.Ptr
		}
	}
	name := t.name
	if t.irName != "" {
		name = t.irName
	}
	b.types[t.name] = ir.NamedStruct(name, fields...)
	return b.types[t.name]
}

// record is the constant of type ty holding fields; its pointers name
// globals added before.
func (b *modBuilder) record(ty *ir.Type, fields []field) *ir.Aggregate {
	elems := make([]ir.Constant, len(fields))
	for i, f := range fields {
		switch {
		case f.typ == tI32:
			elems[i] = i32(f.v)
		case f.sym == "":
			elems[i] = nullPtr
		default:
			elems[i] = imageByte(b.globals[f.sym], f.off)
		}
	}
	return &ir.Aggregate{T: ty, Elems: elems}
}

func i32(v int64) *ir.Int { return ir.ConstInt(ir.I32, v) }
func i64(v int64) *ir.Int { return ir.ConstInt(ir.I64, v) }

var nullPtr = &ir.Null{T: ir.Ptr}

// entryBounds declares the bounds of the entries section and the dummy
// entry that makes the linker define them.
func (b *modBuilder) entryBounds() {
	l := b.p.entries
	if b.p.triple.coff {
		b.coffBounds()
		return
	}
	ty := ir.Array(0, b.entryTy)
	if b.p.abi == Legacy && b.p.kind == OpenMP {
		ty = b.entryTy // clang-offload-wrapper declared single entries
	}
	for _, name := range []string{l.start, l.stop} {
		g := b.m.AddGlobal(name, ty)
		g.Constant, g.Visibility = true, ir.Hidden
		b.globals[name] = g
		if name == l.start {
			b.start = g
		} else {
			b.stop = g
		}
	}
	dummy := b.constant(l.dummy, &ir.Null{T: ir.Array(0, b.entryTy)})
	dummy.Section = l.section
	if !l.dummyLocal {
		dummy.Linkage, dummy.Visibility = ir.Weak, ir.Hidden
		return
	}
	dummy.Align = 8
	used := b.m.AddGlobal("llvm.compiler.used", ir.Array(1, ir.Ptr))
	used.Linkage, used.Section = ir.Appending, "llvm.metadata"
	used.Init = &ir.Aggregate{T: used.ValueType, Elems: []ir.Constant{dummy}}
}

// coffBounds defines the bounds on COFF hosts, which have no __start_ and
// __stop_ symbols: empty arrays in the sections $OA and $OZ, which the
// linker sorts around the entries' section.
func (b *modBuilder) coffBounds() {
	l := b.p.entries
	for i, suffix := range []string{"$OA", "$OZ"} {
		g := b.constant([]string{l.start, l.stop}[i], &ir.Null{T: ir.Array(0, b.entryTy)})
		g.Linkage, g.Visibility, g.Section = ir.WeakODR, ir.Hidden, l.section+suffix
		if i == 0 {
			b.start = g
		} else {
			b.stop = g
		}
	}
}

// image adds a global holding an image.
func (b *modBuilder) image(im planImage) *ir.Global {
	return b.constant(im.name, &ir.Bytes{Data: im.img.Data, Size: im.img.Size})
}

// ctors adds llvm.global_ctors (and llvm.global_dtors for legacy OpenMP).
func (b *modBuilder) ctors(reg, unreg *ir.Function) {
	list := func(name string, prio int, f *ir.Function) {
		entry := ir.Struct(ir.I32, ir.PtrTo(voidFn), ir.Ptr)
		g := b.m.AddGlobal(name, ir.Array(1, entry))
		g.Linkage = ir.Appending
		g.Init = &ir.Aggregate{T: g.ValueType, Elems: []ir.Constant{
			&ir.Aggregate{T: entry, Elems: []ir.Constant{i32(int64(prio)), f, nullPtr}}}}
	}
	list("llvm.global_ctors", b.p.ctorPrio, reg)
	if b.p.dtorPrio != 0 {
		list("llvm.global_dtors", b.p.dtorPrio, unreg)
	}
}

// startup adds an internal function in .text.startup.
func (b *modBuilder) startup(name string, sig *ir.Type) *ir.Function {
	f := b.m.AddFunc(name, sig, ir.Internal)
	f.Section = ".text.startup"
	return f
}

func (b *modBuilder) declare(name string, ret *ir.Type, params ...*ir.Type) *ir.Function {
	return b.m.AddFunc(name, ir.Func(ret, params...), ir.External)
}

func (b *modBuilder) openMP() {
	p := b.p
	imageTy := b.recordType(deviceImageType)
	descTy := b.recordType(binDescType)
	infoTy := b.recordType(imageInfoType)
	b.entryBounds()
	var elems []ir.Constant
	for _, im := range p.images {
		g := b.image(im)
		g.UnnamedAddr = true
		if im.secType == shtLLVMOffloading {
			g.Section, g.Align = im.section, 8
		}
		row := b.record(imageTy, p.imageRow(im))
		if p.abi == Legacy && !p.packages && im.span == (span{0, im.img.Size}) && im.img.Size > 0 {
			row.Elems[1] = pastImage(g) // as clang-offload-wrapper 14 writes it
		}
		elems = append(elems, row)
	}
	arr := b.constant(p.imagesArr, &ir.Aggregate{T: ir.Array(uint64(len(elems)), imageTy), Elems: elems})
	arr.UnnamedAddr = true
	desc := b.constant(p.desc, b.record(descTy, p.descFields()))
	var infos []*ir.Global
	for i, in := range p.infos {
		arch := b.constant(in.archName, &ir.Bytes{Data: strings.NewReader(in.arch + "\x00"), Size: int64(len(in.arch) + 1)})
		arch.UnnamedAddr, arch.Section = true, ".offload_arch_list"
		info := b.constant(in.name, b.record(infoTy, p.infoFields(i)))
		info.UnnamedAddr = true
		infos = append(infos, info)
	}
	// Functions are declared in the order LLVM creates them, with LLVM 14's
	// pointees; their calls come from the plan.
	reg := b.startup(p.reg, voidFn)
	var regInfo, atexit *ir.Function
	if len(infos) > 0 {
		regInfo = b.declare("__tgt_register_image_info", ir.Void, ir.PtrTo(infoTy))
		regInfo.Linkage = ir.ExternWeak
	}
	regLib := b.declare("__tgt_register_lib", ir.Void, ir.PtrTo(descTy))
	if p.dtorPrio == 0 {
		atexit = b.declare("atexit", ir.I32, ir.PtrTo(voidFn))
	}
	unreg := b.startup(p.unreg, voidFn)
	unregLib := b.declare("__tgt_unregister_lib", ir.Void, ir.PtrTo(descTy))
	b.ctors(reg, unreg)

	fns := map[string]*ir.Function{"__tgt_register_lib": regLib, "atexit": atexit, "__tgt_unregister_lib": unregLib}
	if regInfo != nil {
		fns[regInfo.Name] = regInfo
	}
	vals := map[string]ir.Value{p.desc: desc, p.unreg: unreg}
	for i, in := range p.infos {
		vals[in.name] = infos[i]
	}
	b.steps(reg, p.ctor, fns, vals)
	b.steps(unreg, p.dtor, fns, vals)
}

// steps builds the body of a constructor or destructor from its calls:
// functions and values by name. A run of ifDefined steps gets a block of
// its own, entered where the weak function is not null.
func (b *modBuilder) steps(f *ir.Function, steps []regStep, fns map[string]*ir.Function, vals map[string]ir.Value) {
	bb := f.AddBlock("entry")
	var h ir.Value
	var rest *ir.Block
	for i, s := range steps {
		fn := fns[s.fn]
		if groupStart(steps, i) {
			in, next := f.AddBlock("info"), f.AddBlock("reg")
			bb.CondBr(bb.ICmp("", ir.NE, fn, nullPtr), in, next)
			bb, rest = in, next
		}
		args := make([]ir.Value, len(s.args))
		for j, g := range s.args {
			switch g.kind {
			case argAddr:
				args[j] = vals[g.sym]
			case argLoad:
				args[j] = bb.Load("", ir.Ptr, vals[g.sym], 8)
			default:
				args[j] = h
			}
		}
		r := bb.Call("", fn, args...)
		if s.keep {
			bb.Store(r, vals[b.p.handle], 8)
			h = r
		}
		if groupEnd(steps, i) {
			bb.Br(rest)
			bb = rest
		}
	}
	bb.Ret()
}

// pastImage is the address just past the image g, as the inbounds
// element after the whole array.
func pastImage(g *ir.Global) ir.Constant {
	return &ir.GEP{Src: g.ValueType, Base: g, Indices: []ir.Constant{i64(1), i64(0)}, Inbounds: true}
}

// imageByte is a pointer to byte off of the image g, folded as LLVM folds
// it: the global itself at offset 0.
func imageByte(g *ir.Global, off int64) ir.Constant {
	if off == 0 {
		return g
	}
	return &ir.GEP{Src: g.ValueType, Base: g, Indices: []ir.Constant{i64(0), i64(off)}}
}
