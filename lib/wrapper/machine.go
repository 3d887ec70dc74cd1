package wrapper

// The registration functions in machine code, written once for both
// encoders (x86.go, arm64.go): the driver below decides what is called
// when; an encoder decides the registers, the stack frames and the
// instructions.

// machine is an encoder's side of the registration functions.
type machine interface {
	label(l string)
	goTo(l string)

	// Constructor and destructor.
	enterFunc(ctor bool)
	leaveFunc(ctor bool)
	skipIfNull(fn, skip string) // to skip where the weak fn is not defined
	// stepArg places argument j; fresh: a handle is still in the result
	// register of the previous call.
	stepArg(j int, g arg, fresh bool)
	stepCall(s regStep)
	keepHandle(sym string) // saves and stores the handle just returned

	// The entry loop.
	enterLoop(l entryLayout) // the handle is the first argument
	exitIfDone(done string)
	skipOtherKind(l entryLayout, kind int, next string)
	branchIfSized(l entryLayout, variable string) // a variable; else a kernel
	loadType(l entryLayout)
	branchIfType(typ int, to string)
	callWith(l entryLayout, c call)
	advance(l entryLayout)
	leaveLoop()
}

// machineFuncs writes the destructor, the entry loop (CUDA, HIP) and the
// constructor of p with m.
func machineFuncs(m machine, p *plan) {
	m.label(p.unreg)
	m.enterFunc(false)
	machineSteps(m, p, p.dtor)
	m.leaveFunc(false)
	if p.kind != OpenMP {
		entryLoop(m, p)
	}
	m.label(p.reg)
	m.enterFunc(true)
	machineSteps(m, p, p.ctor)
	m.leaveFunc(true)
}

func machineSteps(m machine, p *plan, steps []regStep) {
	fresh := false
	for i, s := range steps {
		if groupStart(steps, i) {
			m.skipIfNull(s.fn, skipLabel)
		}
		for j, g := range s.args {
			m.stepArg(j, g, fresh)
		}
		m.stepCall(s)
		if groupEnd(steps, i) {
			m.label(skipLabel)
		}
		if s.keep {
			m.keepHandle(p.handle)
		}
		fresh = s.keep
	}
}

// entryLoop registers every entry of the kind between the bounds: kernels
// (size 0), then variables by their type.
func entryLoop(m machine, p *plan) {
	const loop, next, done, variable = ".Lglobals_loop", ".Lglobals_next", ".Lglobals_done", ".Lglobals_var"
	l := p.entries
	m.label(p.globals)
	m.enterLoop(l)
	m.label(loop)
	m.exitIfDone(done)
	if l.kindOff >= 0 {
		m.skipOtherKind(l, int(p.kind), next)
	}
	m.branchIfSized(l, variable)
	m.callWith(l, p.perEntry.kernel)
	m.goTo(next)
	m.label(variable)
	m.loadType(l)
	vars := p.perEntry.vars
	for _, c := range vars {
		if c.on {
			m.branchIfType(c.typ, ".Lglobals_"+c.label)
		}
	}
	m.goTo(next)
	for i, c := range vars {
		if !c.on {
			continue
		}
		m.label(".Lglobals_" + c.label)
		m.callWith(l, c.call)
		if i < len(vars)-1 {
			m.goTo(next)
		}
	}
	m.label(next)
	m.advance(l)
	m.goTo(loop)
	m.label(done)
	m.leaveLoop()
}
