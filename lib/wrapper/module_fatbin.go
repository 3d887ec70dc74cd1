package wrapper

import "github.com/rules-offload/rules_offload/lib/ir"

// fatbin builds the CUDA or HIP module: the fat binary, its wrapper, the
// handle, and the functions registering the binary and every entry.
func (b *modBuilder) fatbin() {
	p, rt := b.p, b.p.rt
	wrapperTy := b.recordType(fatbinWrapperType)
	if p.abi == LLVM20 {
		b.entryBounds()
	}
	img := b.image(p.fatbin)
	img.Section = p.fatbin.section
	wrapper := b.constant(p.wrapper, b.record(wrapperTy, p.wrapperFields()))
	wrapper.Section, wrapper.Align = p.wrapSec, 8
	if p.abi == Legacy {
		b.entryBounds()
	}
	handle := b.m.AddGlobal(p.handle, ir.Ptr)
	handle.Linkage, handle.Init = ir.Internal, nullPtr

	// Functions are declared in the order LLVM creates them (the end call
	// even for HIP), which the module keeps; their calls come from the plan.
	reg := b.startup(p.reg, voidFn)
	unreg := b.startup(p.unreg, voidFn)
	regFatbin := b.declare(rt.regFatbin, ir.Ptr, ir.Ptr)
	regFatbinEnd := b.declare(rt.regFatbinEnd, ir.Void, ir.Ptr)
	unregFatbin := b.declare(rt.unregFatbin, ir.Void, ir.Ptr)
	atexit := b.declare("atexit", ir.I32, ir.PtrTo(voidFn))
	fns := map[string]*ir.Function{}
	b.declareCall(fns, p.perEntry.kernel)
	for _, c := range p.perEntry.vars {
		if c.declared {
			b.declareCall(fns, c.call)
		}
	}
	globals := b.startup(p.globals, ir.Func(ir.Void, ir.Ptr))
	b.ctors(reg, unreg)

	for _, f := range []*ir.Function{regFatbin, regFatbinEnd, unregFatbin, atexit, globals} {
		fns[f.Name] = f
	}
	vals := map[string]ir.Value{p.wrapper: wrapper, p.unreg: unreg, p.handle: handle}
	b.steps(reg, p.ctor, fns, vals)
	b.steps(unreg, p.dtor, fns, vals)
	b.globalsReg(globals, fns)
}

// irTypes are the IR types of the value types.
var irTypes = [...]*ir.Type{tVoid: ir.Void, tPtr: ir.Ptr, tI32: ir.I32, tI64: ir.I64, tI16: ir.I16}

// declareCall declares the runtime function c calls.
func (b *modBuilder) declareCall(fns map[string]*ir.Function, c call) {
	params := make([]*ir.Type, len(c.args))
	for i, g := range c.args {
		params[i] = irTypes[g.typ]
	}
	fns[c.fn] = b.declare(c.fn, irTypes[c.ret], params...)
}

// irFields and irFlags name the values the loop loads and computes.
var (
	irFields = [...]string{fAddr: "addr", fName: "name", fSize: "size", fData: "data", fAuxAddr: "aux_addr"}
	irFlags  = map[int]string{bitExtern: "extern", bitConstant: "constant", bitNormalized: "normalized"}
)

// callIn calls c in bb with the loop's values v and the handle h.
func callIn(bb *ir.Block, fns map[string]*ir.Function, c call, v map[string]ir.Value, h ir.Value) {
	args := make([]ir.Value, len(c.args))
	for i, g := range c.args {
		switch {
		case g.kind == argHandle:
			args[i] = h
		case g.kind == argField:
			args[i] = v[irFields[g.field]]
		case g.kind == argFlag:
			args[i] = v[irFlags[g.bit]]
		case g.typ == tPtr:
			args[i] = nullPtr
		default:
			args[i] = ir.ConstInt(irTypes[g.typ], g.val)
		}
	}
	bb.Call("", fns[c.fn], args...)
}

// loadedField is a field of an offload entry the loop loads.
type loadedField struct {
	name  string
	index int64
	typ   *ir.Type
	align uint64
}

// globalsReg builds the loop that registers every entry of the kind:
// kernels (size 0), variables, managed variables, surfaces and textures.
func (b *modBuilder) globalsReg(f *ir.Function, fns map[string]*ir.Function) {
	p := b.p
	handle := f.Params[0]
	entry, loop := f.AddBlock("entry"), f.AddBlock("while.entry")
	var ifKind *ir.Block
	if p.abi == LLVM20 {
		ifKind = f.AddBlock("if.kind")
	}
	ifThen, ifElse := f.AddBlock("if.then"), f.AddBlock("if.else")
	var cases []*ir.Block
	for _, c := range p.perEntry.vars {
		cases = append(cases, f.AddBlock("sw."+c.label))
	}
	ifEnd, done := f.AddBlock("if.end"), f.AddBlock("while.end")

	entry.CondBr(entry.ICmp("", ir.NE, b.start, b.stop), loop, done)

	cur := loop.Phi("entry1", ir.PtrTo(b.entryTy))
	cur.Incoming(b.start, entry)
	fields := []loadedField{{"addr", 0, ir.Ptr, 8}, {"name", 1, ir.Ptr, 8}, {"size", 2, ir.I64, 8},
		{"flags", 3, ir.I32, 4}, {"textype", 4, ir.I32, 4}}
	first := i64(0)
	if p.abi == LLVM20 {
		fields = []loadedField{{"addr", 4, ir.Ptr, 8}, {"aux_addr", 8, ir.Ptr, 8}, {"kind", 2, ir.I16, 2},
			{"name", 5, ir.Ptr, 8}, {"size", 6, ir.I64, 4}, {"flags", 3, ir.I32, 4}, {"data", 7, ir.I64, 4}}
		first = i32(0)
	}
	v := map[string]ir.Value{}
	for _, fl := range fields {
		ptr := loop.GEP("", true, b.entryTy, cur, first, i32(fl.index))
		v[fl.name] = loop.Load(fl.name, fl.typ, ptr, fl.align)
	}
	if p.abi == LLVM20 {
		v["data"] = loop.Trunc("", v["data"], ir.I32)
	} else {
		v["data"] = v["textype"]
	}
	flags := v["flags"]
	typ := loop.And("type", flags, i32(7))
	for _, bit := range []struct {
		name  string
		shift int64
	}{{"extern", 3}, {"constant", 4}, {"normalized", 5}} {
		v[bit.name] = loop.LShr(bit.name, loop.And("", flags, i32(1<<bit.shift)), i32(bit.shift))
	}
	test := loop
	if ifKind != nil {
		isKind := loop.ICmp("", ir.EQ, v["kind"], ir.ConstInt(ir.I16, int64(p.kind)))
		loop.CondBr(isKind, ifKind, ifEnd)
		test = ifKind
	}
	test.CondBr(test.ICmp("", ir.EQ, v["size"], i64(0)), ifThen, ifElse)

	callIn(ifThen, fns, p.perEntry.kernel, v, handle)
	ifThen.Br(ifEnd)
	sw := ifElse.Switch(typ, ifEnd)
	for i, c := range p.perEntry.vars {
		sw.Case(i32(int64(c.typ)), cases[i])
	}
	for i, c := range p.perEntry.vars {
		if c.on {
			callIn(cases[i], fns, c.call, v, handle)
		}
		cases[i].Br(ifEnd)
	}

	next := ifEnd.GEP("", true, b.entryTy, cur, i64(1))
	ifEnd.CondBr(ifEnd.ICmp("", ir.EQ, next, b.stop), done, loop)
	cur.Incoming(next, ifEnd)
	done.Ret()
}
