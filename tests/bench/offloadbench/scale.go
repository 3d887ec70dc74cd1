package main

// scale sets the sizes of one benchmark run.
type scale struct {
	name string
	reps int
	// amdArchs are compiled for; the first four make the four-target
	// bundles, packages and archives. ptxArchs join the realistic
	// multi-target bundle only.
	amdArchs []string
	ptxArchs []string
	seeds    int // distinct generated sources per target
	kernels  int // kernels per source
	// perTarget is the size of each of the four device inputs of the
	// bundle cases (device code replicated to it, or random bytes).
	perTarget int64
	members   int   // archive members, each a bundle for four targets
	bigSize   int64 // the bundle and archive inspect reads; four packager images of bigSize/4
}

var scales = map[string]scale{
	"full": {
		name:      "full",
		reps:      5,
		amdArchs:  []string{"gfx906", "gfx908", "gfx90a", "gfx1100", "gfx900", "gfx942", "gfx1030", "gfx1101", "gfx1200", "gfx1201"},
		ptxArchs:  []string{"sm_70", "sm_80"},
		seeds:     3,
		kernels:   300,
		perTarget: 64 << 20,
		members:   1000,
		bigSize:   1 << 30,
	},
	"small": {
		name:      "small",
		reps:      3,
		amdArchs:  []string{"gfx906", "gfx908", "gfx90a", "gfx1100"},
		ptxArchs:  []string{"sm_80"},
		seeds:     1,
		kernels:   60,
		perTarget: 8 << 20,
		members:   1000,
		bigSize:   64 << 20,
	},
}
