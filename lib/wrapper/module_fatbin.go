package wrapper

import "github.com/rules-offload/rules_offload/lib/ir"

// fatbin builds the CUDA or HIP module: the fat binary, its wrapper, the
// handle, and the functions registering the binary and every entry.
func (b *modBuilder) fatbin() {
	p, rt := b.p, b.p.rt
	wrapperTy := ir.NamedStruct("fatbin_wrapper", ir.I32, ir.I32, ir.Ptr, ir.Ptr)
	if p.abi == LLVM20 {
		b.entryBounds()
	}
	img := b.image(p.fatbin)
	img.Section = p.fatbin.section
	wrapper := b.constant(p.wrapper, &ir.Aggregate{T: wrapperTy, Elems: []ir.Constant{
		i32(int64(int32(p.magic))), i32(1), img, nullPtr}})
	wrapper.Section, wrapper.Align = p.wrapSec, 8
	if p.abi == Legacy {
		b.entryBounds()
	}
	handle := b.m.AddGlobal(p.handle, ir.Ptr)
	handle.Linkage, handle.Init = ir.Internal, nullPtr

	reg := b.startup(p.reg, voidFn)
	unreg := b.startup(p.unreg, voidFn)
	regFatbin := b.declare(rt.regFatbin, ir.Ptr, ir.Ptr)
	regFatbinEnd := b.declare(rt.regFatbinEnd, ir.Void, ir.Ptr)
	unregFatbin := b.declare(rt.unregFatbin, ir.Void, ir.Ptr)
	atexit := b.declare("atexit", ir.I32, ir.PtrTo(voidFn))
	P, I32, I64 := ir.Ptr, ir.I32, ir.I64
	fns := registrars{
		function: b.declare(rt.regFunc, I32, P, P, P, P, I32, P, P, P, P, P),
		variable: b.declare(rt.regVar, ir.Void, P, P, P, P, I32, I64, I32, I32),
	}
	if p.abi == LLVM20 {
		fns.managed = b.declare(rt.regManaged, ir.Void, P, P, P, P, I64, I32)
	}
	fns.surface = b.declare(rt.regSurface, ir.Void, P, P, P, P, I32, I32)
	fns.texture = b.declare(rt.regTexture, ir.Void, P, P, P, P, I32, I32, I32)
	globals := b.startup(p.globals, ir.Func(ir.Void, ir.Ptr))
	b.ctors(reg, unreg)

	bb := reg.AddBlock("entry")
	h := bb.Call("", regFatbin, wrapper)
	bb.Store(h, handle, 8)
	bb.Call("", globals, h)
	if rt.callEnd {
		bb.Call("", regFatbinEnd, h)
	}
	bb.Call("", atexit, unreg)
	bb.Ret()

	bb = unreg.AddBlock("entry")
	bb.Call("", unregFatbin, bb.Load("", ir.Ptr, handle, 8))
	bb.Ret()

	b.globalsReg(globals, fns)
}

// registrars are the runtime functions globalsReg calls; managed is nil
// where managed variables are not registered.
type registrars struct {
	function, variable, managed, surface, texture *ir.Function
}

// entryField is a field of an offload entry loaded by globalsReg.
type entryField struct {
	name  string
	index int64
	typ   *ir.Type
	align uint64
}

// globalsReg builds the loop that registers every entry of the kind:
// kernels (size 0), variables, managed variables, surfaces and textures.
func (b *modBuilder) globalsReg(f *ir.Function, fns registrars) {
	p, rt := b.p, b.p.rt
	handle := f.Params[0]
	entry, loop := f.AddBlock("entry"), f.AddBlock("while.entry")
	var ifKind *ir.Block
	if p.abi == LLVM20 {
		ifKind = f.AddBlock("if.kind")
	}
	ifThen, ifElse := f.AddBlock("if.then"), f.AddBlock("if.else")
	swGlobal, swManaged := f.AddBlock("sw.global"), f.AddBlock("sw.managed")
	swSurface, swTexture := f.AddBlock("sw.surface"), f.AddBlock("sw.texture")
	ifEnd, done := f.AddBlock("if.end"), f.AddBlock("while.end")

	entry.CondBr(entry.ICmp("", ir.NE, b.start, b.stop), loop, done)

	cur := loop.Phi("entry1", ir.PtrTo(b.entryTy))
	cur.Incoming(b.start, entry)
	fields := []entryField{{"addr", 0, ir.Ptr, 8}, {"name", 1, ir.Ptr, 8}, {"size", 2, ir.I64, 8},
		{"flags", 3, ir.I32, 4}, {"textype", 4, ir.I32, 4}}
	first := i64(0)
	if p.abi == LLVM20 {
		fields = []entryField{{"addr", 4, ir.Ptr, 8}, {"aux_addr", 8, ir.Ptr, 8}, {"kind", 2, ir.I16, 2},
			{"name", 5, ir.Ptr, 8}, {"size", 6, ir.I64, 4}, {"flags", 3, ir.I32, 4}, {"data", 7, ir.I64, 4}}
		first = i32(0)
	}
	v := map[string]ir.Value{}
	for _, fl := range fields {
		ptr := loop.GEP("", true, b.entryTy, cur, first, i32(fl.index))
		v[fl.name] = loop.Load(fl.name, fl.typ, ptr, fl.align)
	}
	data := v["textype"]
	if p.abi == LLVM20 {
		data = loop.Trunc("", v["data"], ir.I32)
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
		isKind := loop.ICmp("", ir.EQ, v["kind"], ir.ConstInt(ir.I16, int64(p.kind.offloadKind())))
		loop.CondBr(isKind, ifKind, ifEnd)
		test = ifKind
	}
	test.CondBr(test.ICmp("", ir.EQ, v["size"], i64(0)), ifThen, ifElse)

	addr, name, size := v["addr"], v["name"], v["size"]
	ifThen.Call("", fns.function, handle, addr, name, name, i32(-1), nullPtr, nullPtr, nullPtr, nullPtr, nullPtr)
	ifThen.Br(ifEnd)
	sw := ifElse.Switch(typ, ifEnd)
	for i, dst := range []*ir.Block{swGlobal, swManaged, swSurface, swTexture} {
		sw.Case(i32(int64(i)), dst)
	}
	swGlobal.Call("", fns.variable, handle, addr, name, name, v["extern"], size, v["constant"], i32(0))
	if rt.managed {
		swManaged.Call("", fns.managed, handle, v["aux_addr"], addr, name, size, data)
	}
	if rt.surfTex {
		swSurface.Call("", fns.surface, handle, addr, name, name, data, v["extern"])
		swTexture.Call("", fns.texture, handle, addr, name, name, data, v["normalized"], v["extern"])
	}
	for _, bb := range []*ir.Block{swGlobal, swManaged, swSurface, swTexture} {
		bb.Br(ifEnd)
	}

	next := ifEnd.GEP("", true, b.entryTy, cur, i64(1))
	ifEnd.CondBr(ifEnd.ICmp("", ir.EQ, next, b.stop), done, loop)
	cur.Incoming(next, ifEnd)
	done.Ret()
}
