package regcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/shown"
)

// Options say what the program declares.
type Options struct {
	// Targets maps a kind to the target lists its libraries declare: each
	// fat binary of that kind must hold exactly one of them. A kind
	// without lists is not checked for targets.
	Targets map[string][][]string
	// Host lists the kernels the host program can launch (HostKernels);
	// nil when unknown, which makes every unregistered kernel a problem.
	Host map[string]bool
	// MaxUncompressedSize bounds what the record's compressed images
	// inflate to, together (0: budget.DefaultLimit); LimitHint says how the
	// user raises it (budget.SetHint).
	MaxUncompressedSize uint64
	LimitHint           string
	// TempDir is where large compressed images are inflated ("" for
	// os.TempDir).
	TempDir string
}

// Check checks every unit of the record. What its compressed images
// declare they inflate to is checked against one budget before any is
// inflated.
func Check(rec *Record, opt Options) (*Report, error) {
	rec.budget, rec.tempDir = budget.New(opt.MaxUncompressedSize), opt.TempDir
	rec.budget.SetHint(opt.LimitHint)
	sum := uint64(0)
	for _, u := range rec.Units {
		for _, b := range u.Blobs {
			// Clamped: more than any budget, and no wrap-around.
			sum = min(sum+min(declared(u.Kind, rec.Open(b)), 1<<62), 1<<62)
		}
	}
	if err := rec.budget.Check(sum); err != nil {
		return nil, fmt.Errorf("the record's compressed images: %w", err)
	}
	rep := &Report{}
	if len(rec.Units) == 0 {
		rep.problem(func() string {
			return "the program registers no fat binary: no offload library's registration " +
				"constructor ran (are the offload libraries among the binary's deps?)"
		})
	}
	for _, u := range rec.Units {
		imgs, err := rec.Images(u)
		if err != nil {
			return nil, err
		}
		checkUnit(rep, u, imgs, opt)
	}
	return rep, nil
}

func unitName(u *Unit) string {
	return fmt.Sprintf("%s fat binary #%d", shown.Name(u.Kind), u.Handle)
}

func checkUnit(rep *Report, u *Unit, imgs []*Image, opt Options) {
	targets := make([]string, len(imgs))
	for i, im := range imgs {
		if im.Target == "" {
			im.Target = targetOfArch(rep, u, im, opt.Targets[u.Kind])
		}
		targets[i] = im.Target
	}
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s: %s; %d kernels, %d variables registered",
		unitName(u), named(targets), len(u.Functions), len(u.Vars)))
	checkTargets(rep, u, targets, opt.Targets[u.Kind])
	firsts := distinct(imgs)
	checkRegistered(rep, u, imgs, firsts, u.Functions, "kernel")
	checkRegistered(rep, u, imgs, firsts, u.Vars, "variable")
	checkUnregistered(rep, u, imgs, firsts, opt)
}

// distinct returns the first image of each payload, in image order: the
// images read from bytes no image before them was read from.
func distinct(imgs []*Image) []*Image {
	seen := map[*payload]bool{}
	var out []*Image
	for _, im := range imgs {
		if !seen[im.payload] {
			seen[im.payload] = true
			out = append(out, im)
		}
	}
	return out
}

// checkUnregistered reports the kernels of images that no registration
// names: problems, or notes where the host program cannot launch them.
func checkUnregistered(rep *Report, u *Unit, imgs, firsts []*Image, opt Options) {
	registered := map[string]bool{}
	for _, k := range u.Functions {
		registered[k] = true
	}
	// Per kernel the payloads that hold it unregistered, in image order.
	var names []string
	in := map[string]map[*payload]bool{}
	for _, im := range firsts {
		for _, k := range im.Kernels {
			if registered[k] {
				continue
			}
			if in[k] == nil {
				names = append(names, k)
				in[k] = map[*payload]bool{}
			}
			in[k][im.payload] = true
		}
	}
	// The images that hold k, for the lines that are listed.
	holding := func(k string) string {
		var with []*Image
		for _, im := range imgs {
			if in[k][im.payload] {
				with = append(with, im)
			}
		}
		return imageList(with)
	}
	var regs *nameIndex // of the registered kernels, made on first use
	for _, k := range names {
		if opt.Host != nil && !opt.Host[k] {
			rep.note(func() string {
				return fmt.Sprintf("kernel %s of the %s (%s) is not registered: no host code refers to it, "+
					"so device code instantiated it (e.g. a Thrust algorithm's device-side path); only device code can launch it",
					shown.Name(k), holding(k), unitName(u))
			})
			continue
		}
		why := "the host program has a launch stub for it, but no registration call names it"
		if opt.Host == nil {
			why = "the host compile does not see it (defined only for the device, or named differently there), or its registration call is missing"
		}
		rep.problem(func() string {
			if regs == nil {
				regs = newIndex(u.Functions)
			}
			return fmt.Sprintf("kernel %s of the %s (%s) is registered by no host code: %s%s",
				shown.Name(k), holding(k), unitName(u), why, renamedFrom(k, regs))
		})
	}
}

// targetOfArch names an image that carries no target (an OpenMP image
// registered by legacy entries is the device's shared object itself) by the
// declared triple of its ELF machine.
func targetOfArch(rep *Report, u *Unit, im *Image, declared [][]string) string {
	for _, d := range declared {
		for _, t := range d {
			if im.Arch != "" && strings.HasPrefix(t, im.Arch+"-") {
				rep.note(func() string {
					return fmt.Sprintf("%s: an image without a target string, a %s %s: taken as %s",
						unitName(u), im.Arch, im.Format, shown.Name(t))
				})
				return t
			}
		}
	}
	return fmt.Sprintf("unknown (%s %s)", im.Arch, im.Format)
}

// checkTargets compares a fat binary's targets with the declared lists.
func checkTargets(rep *Report, u *Unit, got []string, declared [][]string) {
	if len(declared) == 0 {
		return
	}
	g := sorted(got)
	for _, d := range declared {
		if strings.Join(sorted(d), ",") == strings.Join(g, ",") {
			return
		}
	}
	best := declared[0]
	for _, d := range declared {
		if overlap(d, g) > overlap(best, g) {
			best = d
		}
	}
	rep.problem(func() string {
		missing, extra := diff(best, g), diff(g, best)
		msg := fmt.Sprintf("%s holds %s, not the declared targets %s", unitName(u), named(g), named(sorted(best)))
		if len(missing) > 0 {
			msg += fmt.Sprintf("; missing: %s (a GPU of that architecture finds no image: \"invalid device function\" or \"no kernel image is available\")", named(missing))
		}
		if len(extra) > 0 {
			msg += fmt.Sprintf("; not declared: %s", named(extra))
		}
		return msg
	})
}

// checkRegistered reports registered names that images lack, one
// problem per name. Whether any image lacks a name is counted per
// payload, over the payloads' names, not per name over the images.
func checkRegistered(rep *Report, u *Unit, imgs, firsts []*Image, names []string, what string) {
	wanted := map[string]int{} // registered name -> the payloads that have it
	for _, n := range names {
		wanted[n] = 0
	}
	for _, im := range firsts {
		for s := range im.Symbols {
			if n, ok := wanted[s]; ok {
				wanted[s] = n + 1
			}
		}
	}
	for _, n := range names {
		if wanted[n] == len(firsts) {
			continue
		}
		rep.problem(func() string {
			var lacking []*Image
			for _, im := range imgs {
				if !im.Symbols[n] {
					lacking = append(lacking, im)
				}
			}
			return fmt.Sprintf("%s %s is registered by the host half but is not in the %s (%s): "+
				"on such a device %s; likely cause: %s",
				what, shown.Name(n), imageList(lacking), unitName(u), failure[u.Kind], likelyCause(n, lacking))
		})
	}
}

// failure says how each runtime fails on a name its image lacks.
var failure = map[string]string{
	"cuda":   "the runtime fails with cudaErrorSymbolNotFound or \"invalid device function\"",
	"hip":    "the runtime fails with hipErrorInvalidDeviceFunction or hipErrorInvalidSymbol",
	"openmp": "libomptarget fails to load the image (\"Failed to load global\" or \"function\")",
}

// likelyCause explains a registered name missing from images.
func likelyCause(name string, imgs []*Image) string {
	if bare, list, ok := cubName(name); ok {
		var per []string
		for _, im := range imgs {
			if k, ok := im.kernelIndex().bare[bare]; ok {
				per = append(per, fmt.Sprintf("%s in the %s image", k.list, shown.Name(im.Target)))
			}
		}
		if len(per) > 0 {
			return fmt.Sprintf("CUB/Thrust kernel named after __CUDA_ARCH_LIST__ %s in the host half, %s "+
				"(the device compiles saw another __CUDA_ARCH_LIST__ than the host compile; every device compile "+
				"needs the library's whole target list)", list, joinCapped(per))
		}
	}
	tried := map[*payload]bool{}
	for _, im := range imgs {
		if tried[im.payload] {
			continue
		}
		tried[im.payload] = true
		if k := im.kernelIndex().similar(name); k != "" {
			return fmt.Sprintf("the %s compile named it %s (a macro such as __CUDA_ARCH__ or "+
				"__HIP_DEVICE_COMPILE__ that differs between host and device compiles)", shown.Name(im.Target), shown.Name(k))
		}
	}
	return "the device compile left it out (#if on __CUDA_ARCH__ or __HIP_DEVICE_COMPILE__), " +
		"or the fat binary comes from other sources than the host code"
}

// joinCapped joins the first maxNamed of parts, already printable, and
// counts the rest.
func joinCapped(parts []string) string {
	if len(parts) <= maxNamed {
		return strings.Join(parts, ", ")
	}
	return strings.Join(parts[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(parts)-maxNamed)
}

// renamedFrom names a registered kernel that k looks like a renaming of;
// regs indexes the registered kernels.
func renamedFrom(k string, regs *nameIndex) string {
	if bare, list, ok := cubName(k); ok {
		if r, ok := regs.bare[bare]; ok {
			return fmt.Sprintf(" (registered as %s: CUB/Thrust kernel named after __CUDA_ARCH_LIST__ %s in the host half, %s here)",
				shown.Name(r.name), r.list, list)
		}
	}
	if r := regs.similar(k); r != "" {
		return fmt.Sprintf(" (registered instead: %s)", shown.Name(r))
	}
	return ""
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func overlap(a, b []string) int { return len(a) - len(diff(a, b)) }

// diff returns the elements of a not in b.
func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}
