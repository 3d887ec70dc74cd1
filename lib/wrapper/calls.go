package wrapper

// The runtime calls of a registration, written once and lowered by every
// back-end (the x86-64 and AArch64 encoders, the IR module, C). A back-end
// owns only its control flow and where values live; which function is
// called with which values is decided here.

// valType is the type of an argument or result, as the IR declares it.
type valType int

const (
	tVoid valType = iota
	tPtr
	tI32
	tI64
	tI16
)

// argKind says where an argument's value comes from.
type argKind int

const (
	argHandle argKind = iota // the fat binary's handle
	argField                 // a field of the current offload entry
	argFlag                  // one bit of the entry's flags
	argInt                   // an integer constant (0 with tPtr: null); the AArch64 encoder loads 0 and -1 only
	argAddr                  // the address of sym, a global or function of the registration
	argLoad                  // the pointer stored in the global sym
)

// entryField names a field of an offload entry.
type entryField int

const (
	fAddr entryField = iota
	fName
	fSize
	fData    // the legacy textype, or the low half of LLVM20's data
	fAuxAddr // LLVM20 only
)

// arg is one argument of a call.
type arg struct {
	kind  argKind
	typ   valType
	field entryField // argField
	bit   int        // argFlag
	val   int64      // argInt
	sym   string     // argAddr, argLoad
}

func handleArg() arg                       { return arg{kind: argHandle, typ: tPtr} }
func fieldArg(f entryField, t valType) arg { return arg{kind: argField, typ: t, field: f} }
func flagArg(bit int) arg                  { return arg{kind: argFlag, typ: tI32, bit: bit} }
func intArg(t valType, v int64) arg        { return arg{kind: argInt, typ: t, val: v} }
func addrArg(sym string) arg               { return arg{kind: argAddr, typ: tPtr, sym: sym} }
func loadArg(sym string) arg               { return arg{kind: argLoad, typ: tPtr, sym: sym} }

// Flag bits of an offload entry read by the registration.
const (
	bitExtern     = 3
	bitConstant   = 4
	bitNormalized = 5
)

// call is a call of a runtime function.
type call struct {
	fn   string
	ret  valType
	args []arg
}

// varCase registers entries of one variable type (flags & 7).
type varCase struct {
	label string // names the case in the back-ends' code: sw.<label>, .Lglobals_<label>
	typ   int
	call  call
	// on: entries of the type are registered; declared: the IR module
	// declares the function even so (LLVM declares surfaces and textures
	// for CUDA too).
	on, declared bool
}

// entryCalls are the calls registering each offload entry of the kind:
// kernels (size 0) by kernel, variables by their type in vars, in order.
type entryCalls struct {
	kernel call
	vars   []varCase
}

// planEntryCalls is what clang's CUDA and HIP registration calls for each
// entry (CodeGen/CGCUDANV.cpp, llvm/Frontend/Offloading/OffloadWrapper.cpp).
func planEntryCalls(rt string, abi EntryABI, hip bool) entryCalls {
	h, addr, name := handleArg(), fieldArg(fAddr, tPtr), fieldArg(fName, tPtr)
	size, data := fieldArg(fSize, tI64), fieldArg(fData, tI32)
	null := intArg(tPtr, 0)
	managed := abi == LLVM20
	return entryCalls{
		// __cudaRegisterFunction(h, addr, name, name, -1, 0, 0, 0, 0, 0)
		kernel: call{rt + "RegisterFunction", tI32, []arg{h, addr, name, name, intArg(tI32, -1), null, null, null, null, null}},
		vars: []varCase{
			// __cudaRegisterVar(h, addr, name, name, extern, size, constant, 0)
			{"global", 0, call{rt + "RegisterVar", tVoid, []arg{h, addr, name, name, flagArg(bitExtern), size,
				flagArg(bitConstant), intArg(tI32, 0)}}, true, true},
			// __cudaRegisterManagedVar(h, aux_addr, addr, name, size, data)
			{"managed", 1, call{rt + "RegisterManagedVar", tVoid, []arg{h, fieldArg(fAuxAddr, tPtr), addr, name, size, data}},
				managed, managed},
			// __hipRegisterSurface(h, addr, name, name, data, extern)
			{"surface", 2, call{rt + "RegisterSurface", tVoid, []arg{h, addr, name, name, data, flagArg(bitExtern)}}, hip, true},
			// __hipRegisterTexture(h, addr, name, name, data, normalized, extern)
			{"texture", 3, call{rt + "RegisterTexture", tVoid, []arg{h, addr, name, name, data, flagArg(bitNormalized),
				flagArg(bitExtern)}}, hip, true},
		},
	}
}

// sameAs reports whether args i and i-1 are the same value (a name passed
// twice), which back-ends copy instead of loading again.
func sameAs(args []arg, i int) bool { return i > 0 && args[i] == args[i-1] && args[i].kind == argField }

// offset is where field f lies in an entry of layout l.
func (l entryLayout) offset(f entryField) int64 {
	return [...]int64{fAddr: l.addrOff, fName: l.nameOff, fSize: l.sizeOff, fData: l.dataOff, fAuxAddr: l.auxOff}[f]
}

// regStep is one call of the constructor or the destructor.
type regStep struct {
	call
	// keep: the result is the fat binary's handle, stored in plan.handle
	// and passed on as argHandle.
	keep bool
	// local: fn is a function of the registration (the entry loop).
	local bool
	// ifDefined: called only where the weak fn is defined; a run of such
	// steps shares one test of fn.
	ifDefined bool
}

// skipLabel ends a run of ifDefined steps in the machine code.
const skipLabel = ".Lomp_reg_lib"

// groupStart and groupEnd tell whether step i starts or ends a run of
// ifDefined steps.
func groupStart(steps []regStep, i int) bool {
	return steps[i].ifDefined && (i == 0 || !steps[i-1].ifDefined)
}

func groupEnd(steps []regStep, i int) bool {
	return steps[i].ifDefined && (i+1 == len(steps) || !steps[i+1].ifDefined)
}

// planOpenMPCalls: __tgt_register_image_info for every target ID where the
// runtime has it, __tgt_register_lib, and __tgt_unregister_lib at exit.
func (p *plan) planOpenMPCalls() {
	for _, in := range p.infos {
		p.ctor = append(p.ctor, regStep{call: call{"__tgt_register_image_info", tVoid, []arg{addrArg(in.name)}}, ifDefined: true})
	}
	p.ctor = append(p.ctor, regStep{call: call{"__tgt_register_lib", tVoid, []arg{addrArg(p.desc)}}})
	if p.dtorPrio == 0 {
		p.ctor = append(p.ctor, regStep{call: call{"atexit", tI32, []arg{addrArg(p.unreg)}}})
	}
	p.dtor = []regStep{{call: call{"__tgt_unregister_lib", tVoid, []arg{addrArg(p.desc)}}}}
}

// planFatbinCalls: the fat binary registered, then every entry through the
// loop, the CUDA end call, and unregistration at exit.
func (p *plan) planFatbinCalls() {
	rt := p.rt
	h := handleArg()
	p.ctor = []regStep{{call: call{rt.regFatbin, tPtr, []arg{addrArg(p.wrapper)}}, keep: true},
		{call: call{p.globals, tVoid, []arg{h}}, local: true}}
	if rt.callEnd {
		p.ctor = append(p.ctor, regStep{call: call{rt.regFatbinEnd, tVoid, []arg{h}}})
	}
	p.ctor = append(p.ctor, regStep{call: call{"atexit", tI32, []arg{addrArg(p.unreg)}}})
	p.dtor = []regStep{{call: call{rt.unregFatbin, tVoid, []arg{loadArg(p.handle)}}}}
}
