package regcheck

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
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
}

// Report is the outcome: a summary line per unit and the problems found.
type Report struct {
	Summary  []string
	Problems []string
	Notes    []string
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Write prints the report.
func (r *Report) Write(w io.Writer) {
	for _, s := range r.Summary {
		fmt.Fprintln(w, s)
	}
	for _, s := range r.Notes {
		fmt.Fprintln(w, "note:", s)
	}
	for _, s := range r.Problems {
		fmt.Fprintln(w, "error:", s)
	}
}

// Check checks every unit of the record.
func Check(rec *Record, opt Options) (*Report, error) {
	rep := &Report{}
	if len(rec.Units) == 0 {
		rep.Problems = append(rep.Problems, "the program registers no fat binary: no offload library's registration "+
			"constructor ran (are the offload libraries among the binary's deps?)")
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
	return fmt.Sprintf("%s fat binary #%d", u.Kind, u.Handle)
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
		unitName(u), strings.Join(targets, ", "), len(u.Functions), len(u.Vars)))
	checkTargets(rep, u, targets, opt.Targets[u.Kind])
	checkRegistered(rep, u, imgs, u.Functions, "kernel")
	checkRegistered(rep, u, imgs, u.Vars, "variable")
	registered := map[string]bool{}
	for _, k := range u.Functions {
		registered[k] = true
	}
	// Per kernel the images that hold it unregistered, in image order.
	var names []string
	in := map[string][]*Image{}
	for _, im := range imgs {
		for _, k := range im.Kernels {
			if registered[k] {
				continue
			}
			if in[k] == nil {
				names = append(names, k)
			}
			in[k] = append(in[k], im)
		}
	}
	for _, k := range names {
		if opt.Host != nil && !opt.Host[k] {
			rep.Notes = append(rep.Notes, fmt.Sprintf("kernel %s of the %s (%s) is not registered: no host code refers to it, "+
				"so device code instantiated it (e.g. a Thrust algorithm's device-side path); only device code can launch it",
				k, imageList(in[k]), unitName(u)))
			continue
		}
		why := "the host program has a launch stub for it, but no registration call names it"
		if opt.Host == nil {
			why = "the host compile does not see it (defined only for the device, or named differently there), or its registration call is missing"
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("kernel %s of the %s (%s) is registered by no host code: %s%s",
			k, imageList(in[k]), unitName(u), why, renamedFrom(k, u.Functions)))
	}
}

// imageList names images: "sm_70 cubin, compute_90 PTX".
func imageList(imgs []*Image) string {
	s := make([]string, len(imgs))
	for i, im := range imgs {
		s[i] = im.Target + " " + im.Format
	}
	return strings.Join(s, ", ")
}

// targetOfArch names an image that carries no target (an OpenMP image
// registered by legacy entries is the device's shared object itself) by the
// declared triple of its ELF machine.
func targetOfArch(rep *Report, u *Unit, im *Image, declared [][]string) string {
	for _, d := range declared {
		for _, t := range d {
			if im.Arch != "" && strings.HasPrefix(t, im.Arch+"-") {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: an image without a target string, a %s %s: taken as %s",
					unitName(u), im.Arch, im.Format, t))
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
	missing, extra := diff(best, g), diff(g, best)
	msg := fmt.Sprintf("%s holds %s, not the declared targets %s", unitName(u), list(g), list(sorted(best)))
	if len(missing) > 0 {
		msg += fmt.Sprintf("; missing: %s (a GPU of that architecture finds no image: \"invalid device function\" or \"no kernel image is available\")", list(missing))
	}
	if len(extra) > 0 {
		msg += fmt.Sprintf("; not declared: %s", list(extra))
	}
	rep.Problems = append(rep.Problems, msg)
}

// checkRegistered reports registered names that images lack, one
// problem per name.
func checkRegistered(rep *Report, u *Unit, imgs []*Image, names []string, what string) {
	for _, n := range names {
		var lacking []*Image
		for _, im := range imgs {
			if !im.Symbols[n] {
				lacking = append(lacking, im)
			}
		}
		if len(lacking) == 0 {
			continue
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s %s is registered by the host half but is not in the %s (%s): "+
			"on such a device %s; likely cause: %s",
			what, n, imageList(lacking), unitName(u), failure[u.Kind], likelyCause(n, lacking)))
	}
}

// failure says how each runtime fails on a name its image lacks.
var failure = map[string]string{
	"cuda":   "the runtime fails with cudaErrorSymbolNotFound or \"invalid device function\"",
	"hip":    "the runtime fails with hipErrorInvalidDeviceFunction or hipErrorInvalidSymbol",
	"openmp": "libomptarget fails to load the image (\"Failed to load global\" or \"function\")",
}

// archList finds CUB's and Thrust's inline namespaces, which name the
// __CUDA_ARCH_LIST__ they were compiled with, with the length that
// precedes them in a mangled name: 21CUB_101702_700_900_NS.
var archList = regexp.MustCompile(`\d*(CUB|THRUST)_(\d+)_((?:\d+_)*\d+)_NS`)

// likelyCause explains a registered name missing from images.
func likelyCause(name string, imgs []*Image) string {
	if m := archList.FindStringSubmatch(name); m != nil {
		var per []string
		for _, im := range imgs {
			if l := archListIn(name, im); l != "" {
				per = append(per, fmt.Sprintf("%s in the %s image", l, im.Target))
			}
		}
		if len(per) > 0 {
			return fmt.Sprintf("CUB/Thrust kernel named after __CUDA_ARCH_LIST__ %s in the host half, %s "+
				"(the device compiles saw another __CUDA_ARCH_LIST__ than the host compile; every device compile "+
				"needs the library's whole target list)", m[3], strings.Join(per, ", "))
		}
	}
	for _, im := range imgs {
		if k := similar(name, im.Kernels); k != "" {
			return fmt.Sprintf("the %s compile named it %s (a macro such as __CUDA_ARCH__ or "+
				"__HIP_DEVICE_COMPILE__ that differs between host and device compiles)", im.Target, k)
		}
	}
	return "the device compile left it out (#if on __CUDA_ARCH__ or __HIP_DEVICE_COMPILE__), " +
		"or the fat binary comes from other sources than the host code"
}

// archListIn returns the __CUDA_ARCH_LIST__ of an image's kernel that is
// name but for its CUB/Thrust namespace, or "".
func archListIn(name string, im *Image) string {
	bare := archList.ReplaceAllString(name, "")
	for _, k := range im.Kernels {
		if n := archList.FindStringSubmatch(k); n != nil && archList.ReplaceAllString(k, "") == bare {
			return n[3]
		}
	}
	return ""
}

// renamedFrom names a registered kernel that k looks like a renaming of.
func renamedFrom(k string, registered []string) string {
	if n := archList.FindStringSubmatch(k); n != nil {
		bare := archList.ReplaceAllString(k, "")
		for _, r := range registered {
			if m := archList.FindStringSubmatch(r); m != nil && archList.ReplaceAllString(r, "") == bare {
				return fmt.Sprintf(" (registered as %s: CUB/Thrust kernel named after __CUDA_ARCH_LIST__ %s in the host half, %s here)", r, m[3], n[3])
			}
		}
	}
	if r := similar(k, registered); r != "" {
		return fmt.Sprintf(" (registered instead: %s)", r)
	}
	return ""
}

// similar returns the name in names that shares the longest common
// prefix with name, if that is at least half of name and most of it.
func similar(name string, names []string) string {
	best, bestLen := "", 0
	for _, n := range names {
		if n == name {
			continue
		}
		p := commonPrefix(n, name)
		if p > bestLen {
			best, bestLen = n, p
		}
	}
	if bestLen*2 < len(name) || bestLen < 4 {
		return ""
	}
	return best
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
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

func list(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}
