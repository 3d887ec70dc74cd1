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
	// Unregistered names kernels that may be in images without being
	// registered (launched only from device code), with the reason.
	Unregistered map[string]string
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
	registered := map[string]bool{}
	for _, k := range u.Functions {
		registered[k] = true
	}
	for _, im := range imgs {
		checkRegistered(rep, u, im, u.Functions, "kernel")
		checkRegistered(rep, u, im, u.Vars, "variable")
		for _, k := range im.Kernels {
			if registered[k] {
				continue
			}
			if why, ok := opt.Unregistered[k]; ok {
				rep.Notes = append(rep.Notes, fmt.Sprintf("kernel %s of the %s image of %s is not registered: %s", k, im.Target, unitName(u), why))
				continue
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("kernel %s of the %s %s (%s) is registered by no host code: "+
				"the host compile does not see it (defined only for the device, or named differently there)%s; "+
				"a kernel launched only from device code may be listed as unregistered",
				k, im.Target, im.Format, unitName(u), renamedFrom(k, u.Functions)))
		}
	}
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

// checkRegistered reports registered names an image lacks.
func checkRegistered(rep *Report, u *Unit, im *Image, names []string, what string) {
	for _, n := range names {
		if im.Symbols[n] {
			continue
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s %s is registered by the host half but is not in the %s %s (%s): "+
			"on such a GPU it fails with cudaErrorSymbolNotFound / hipErrorInvalidDeviceFunction; %s",
			what, n, im.Target, im.Format, unitName(u), likelyCause(n, im)))
	}
}

// archList finds CUB's and Thrust's inline namespaces, which name the
// __CUDA_ARCH_LIST__ they were compiled with: cub::CUB_101702_700_900_NS.
var archList = regexp.MustCompile(`(CUB|THRUST)_(\d+)_((?:\d+_)*\d+)_NS`)

// likelyCause explains a registered name missing from an image.
func likelyCause(name string, im *Image) string {
	if m := archList.FindStringSubmatch(name); m != nil {
		for _, k := range im.Kernels {
			if n := archList.FindStringSubmatch(k); n != nil && n[1] == m[1] && n[3] != m[3] &&
				archList.ReplaceAllString(k, "") == archList.ReplaceAllString(name, "") {
				return fmt.Sprintf("likely cause: CUB/Thrust kernel named after __CUDA_ARCH_LIST__ %s in the host half, %s in the %s image "+
					"(the device compile saw another __CUDA_ARCH_LIST__ than the host compile; every device compile needs the "+
					"library's whole target list)", m[3], n[3], im.Target)
			}
		}
	}
	if k := similar(name, im.Kernels); k != "" {
		return fmt.Sprintf("likely cause: the device compile named it %s (a macro such as __CUDA_ARCH__ or "+
			"__HIP_DEVICE_COMPILE__ that differs between host and device compiles)", k)
	}
	return "likely cause: the device compile for this target left it out (#if on __CUDA_ARCH__ or __HIP_DEVICE_COMPILE__), " +
		"or the fat binary comes from other sources than the host code"
}

// renamedFrom names a registered kernel that k looks like a renaming of.
func renamedFrom(k string, registered []string) string {
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
