package bundler_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// target is one bundle entry ID as a test writes it on a command line,
// with its standardized form and the parts the compatibility rules look at.
// The standardized forms are clang-offload-bundler 22.1.8's
// (docs/provenance.md#entry-ids);
// TestStandardIDs checks them against LLVM's --list.
type target struct {
	raw    string // as given to -targets
	std    string // as stored in bundles and listed
	kind   string // host hip hipv4 openmp
	triple string // standardized triple
	proc   string // processor; "" when the ID has no target ID LLVM keeps
	feats  map[string]byte
}

// tripleFamily is a device triple, its accepted spellings and processors.
type tripleFamily struct {
	spellings []string // each standardizes to std
	std       string
	procs     []procSpec
}

type procSpec struct {
	name  string
	feats []string // target features the processor supports
}

var deviceFamilies = []tripleFamily{
	{
		spellings: []string{"amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa-gnu"},
		std:       "amdgcn-amd-amdhsa-",
		procs: []procSpec{
			{"gfx900", []string{"xnack"}},
			{"gfx906", []string{"sramecc", "xnack"}},
			{"gfx908", []string{"sramecc", "xnack"}},
			{"gfx90a", []string{"sramecc", "xnack"}},
			{"gfx942", []string{"sramecc", "xnack"}},
			{"gfx1030", nil},
			{"gfx1100", nil},
			{"gfx9-4-generic", nil},
		},
	},
	{
		spellings: []string{"nvptx64-nvidia-cuda-", "nvptx64-nvidia-cuda-unknown"},
		std:       "nvptx64-nvidia-cuda-unknown",
		procs:     []procSpec{{"sm_70", nil}, {"sm_80", nil}, {"sm_90a", nil}},
	},
	{
		spellings: []string{"spirv64-amd-amdhsa-", "spirv64-amd-amdhsa-unknown"},
		std:       "spirv64-amd-amdhsa-",
		procs:     []procSpec{{"amdgcnspirv", nil}},
	},
}

// hostSpellings maps host IDs to their standardized form.
var hostSpellings = []struct{ raw, std, triple string }{
	{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-", "x86_64-unknown-linux-gnu"},
	{"host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu-", "x86_64-unknown-linux-gnu"},
	{"host-x86_64-linux-gnu-unknown", "host-x86_64-unknown-linux-gnu-", "x86_64-unknown-linux-gnu"},
	{"host-x86_64-pc-linux-gnu", "host-x86_64-pc-linux-gnu-", "x86_64-pc-linux-gnu"},
	{"host-aarch64-unknown-linux-gnu", "host-aarch64-unknown-linux-gnu-", "aarch64-unknown-linux-gnu"},
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func randHost(r *rand.Rand) target {
	h := pick(r, hostSpellings)
	return target{raw: h.raw, std: h.std, kind: "host", triple: h.triple}
}

// randDevice makes a device target; with features only where the
// processor supports them, in a random order (LLVM keeps the order).
func randDevice(r *rand.Rand, kinds []string) target {
	fam := pick(r, deviceFamilies)
	p := pick(r, fam.procs)
	t := target{kind: pick(r, kinds), triple: fam.std, proc: p.name, feats: map[string]byte{}}
	id := p.name
	for _, i := range r.Perm(len(p.feats)) {
		if r.IntN(3) == 0 {
			continue
		}
		sign := pick(r, []byte{'+', '-'})
		t.feats[p.feats[i]] = sign
		id += ":" + p.feats[i] + string(sign)
	}
	if fam.std == "amdgcn-amd-amdhsa-" && r.IntN(25) == 0 {
		// An AMD alternative name: LLVM 22's bundler drops it.
		id, t.proc, t.feats = "tahiti", "", map[string]byte{}
	}
	return t.respell(r, fam, id)
}

// respell writes t's raw form with a random triple spelling.
func (t target) respell(r *rand.Rand, fam tripleFamily, id string) target {
	t.raw = t.kind + "-" + pick(r, fam.spellings) + "-" + id
	keep := id
	if t.proc == "" {
		keep = ""
	}
	t.std = t.kind + "-" + fam.std + "-" + keep
	return t
}

func familyOf(t target) tripleFamily {
	for _, f := range deviceFamilies {
		if f.std == t.triple {
			return f
		}
	}
	panic("no family for " + t.triple)
}

// targetIDOf is the ID part of a device target's standardized form.
func targetIDOf(t target) string {
	return strings.TrimPrefix(t.std, t.kind+"-"+t.triple+"-")
}

// randTargets makes a target list with distinct standardized IDs:
// usually one host plus up to maxDev devices, sometimes HIP devices only.
func randTargets(r *rand.Rand, maxDev int) []target {
	var ts []target
	seen := map[string]bool{}
	add := func(t target) {
		if !seen[t.std] {
			seen[t.std] = true
			ts = append(ts, t)
		}
	}
	hipOnly := r.IntN(6) == 0
	kinds := []string{"hip", "hipv4", "openmp"}
	if hipOnly {
		kinds = []string{"hip", "hipv4"}
	} else {
		add(randHost(r))
	}
	n := r.IntN(maxDev + 1)
	if hipOnly && n == 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		add(randDevice(r, kinds))
	}
	if len(ts) > 0 && r.IntN(4) == 0 {
		// A sibling of an entry: another spelling, kind or feature set of
		// the same processor, which may conflict with it.
		v, _ := variant(r, ts[r.IntN(len(ts))])
		add(v)
	}
	if !hipOnly && r.IntN(15) == 0 {
		add(randHost(r)) // two hosts: an error, unless both spell one ID
	}
	r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
	return ts
}

func raws(ts []target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.raw
	}
	return strings.Join(s, ",")
}

func stds(ts []target) []string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.std
	}
	sort.Strings(s)
	return s
}

// compatible is LLVM 22's rule (isCodeObjectCompatible,
// docs/provenance.md#compatibility): the
// tests use it only to avoid requests whose result depends on LLVM's hash
// order, never to predict results.
func compatible(co, req target, hipOpenMP bool) bool {
	if co.std == req.std {
		return true
	}
	kinds := co.kind == req.kind ||
		(co.kind == "hip" && req.kind == "hipv4") || (co.kind == "hipv4" && req.kind == "hip") ||
		(hipOpenMP && strings.HasPrefix(co.kind, "hip") && req.kind == "openmp") ||
		(hipOpenMP && co.kind == "openmp" && strings.HasPrefix(req.kind, "hip"))
	if !kinds || co.triple != req.triple || co.proc == "" || co.proc != req.proc {
		return false
	}
	if len(co.feats) > len(req.feats) {
		return false
	}
	for f, v := range co.feats {
		if req.feats[f] != v {
			return false
		}
	}
	return true
}

// exactElsewhere reports whether an entry of cos is compatible with some
// request besides the one equal to it. There the tools differ on purpose:
// ours gives the entry to its exact request, LLVM to the first compatible
// one in hash order. Everywhere else ours follows LLVM's order.
func exactElsewhere(cos, reqs []target, hipOpenMP bool) bool {
	for _, c := range cos {
		exact, n := false, 0
		for _, q := range reqs {
			if compatible(c, q, hipOpenMP) {
				n++
				exact = exact || q.std == c.std
			}
		}
		if exact && n > 1 {
			return true
		}
	}
	return false
}

// ambiguous reports whether some entry suits two requests or some request
// two entries: LLVM then decides by hash order.
func ambiguous(cos, reqs []target, hipOpenMP bool) bool {
	for _, c := range cos {
		n := 0
		for _, q := range reqs {
			if compatible(c, q, hipOpenMP) {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	for _, q := range reqs {
		n := 0
		for _, c := range cos {
			if compatible(c, q, hipOpenMP) {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// variant makes a request that should (or, for kind and feature changes,
// may) select co: the same spelling, another spelling, hip<->hipv4, an
// added feature, or openmp<->hip (which needs --hip-openmp-compatible).
func variant(r *rand.Rand, co target) (req target, needsHIPOpenMP bool) {
	if co.kind == "host" || co.proc == "" {
		return co, false
	}
	fam := familyOf(co)
	req = co
	req.feats = map[string]byte{}
	for k, v := range co.feats {
		req.feats[k] = v
	}
	switch r.IntN(6) {
	case 0, 1:
		return co, false
	case 2:
		return req.respell(r, fam, targetIDOf(co)), false
	case 3:
		switch co.kind {
		case "hip":
			req.kind = "hipv4"
		case "hipv4":
			req.kind = "hip"
		}
		return req.respell(r, fam, targetIDOf(co)), false
	case 4:
		id := targetIDOf(co)
		for _, p := range fam.procs {
			if p.name != co.proc {
				continue
			}
			for _, f := range p.feats {
				if _, ok := req.feats[f]; !ok {
					sign := pick(r, []byte{'+', '-'})
					req.feats[f] = sign
					id += ":" + f + string(sign)
					break
				}
			}
		}
		return req.respell(r, fam, id), false
	}
	switch co.kind {
	case "openmp":
		req.kind = pick(r, []string{"hip", "hipv4"})
	default:
		req.kind = "openmp"
	}
	return req.respell(r, fam, targetIDOf(co)), true
}

// randRequests picks unbundling targets for a bundle holding cos, retrying
// until no request is ambiguous. It returns nil if it found none.
func randRequests(r *rand.Rand, cos []target) (reqs []target, hipOpenMP bool) {
	for try := 0; try < 30; try++ {
		reqs, hipOpenMP = nil, false
		seen := map[string]bool{}
		hosts := 0
		add := func(q target) {
			if seen[q.std] || (q.kind == "host" && hosts > 0) {
				return
			}
			if q.kind == "host" {
				hosts++
			}
			seen[q.std] = true
			reqs = append(reqs, q)
		}
		for _, c := range cos {
			if r.IntN(10) < 6 {
				q, omp := variant(r, c)
				hipOpenMP = hipOpenMP || omp
				add(q)
			}
		}
		if r.IntN(3) == 0 {
			add(randDevice(r, []string{"hip", "hipv4", "openmp"}))
		}
		if len(reqs) == 0 && len(cos) > 0 {
			add(cos[r.IntN(len(cos))])
		}
		if len(reqs) > 0 && !exactElsewhere(cos, reqs, hipOpenMP) {
			r.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
			return reqs, hipOpenMP
		}
	}
	return nil, false
}

// randPayload returns n random bytes; text payloads are printable lines.
func randPayload(r *rand.Rand, text bool) []byte {
	n := 0
	switch r.IntN(5) {
	case 0:
		n = 0
	case 1:
		n = 1 + r.IntN(8)
	default:
		n = r.IntN(600)
	}
	b := make([]byte, n)
	for i := range b {
		if text {
			b[i] = "abcdefghij klmnop;#/(){}=+*0123456789\n"[r.IntN(38)]
		} else {
			b[i] = byte(r.Uint32())
		}
	}
	if !text && n > 0 && b[0] == '_' {
		b[0] = 'x' // not a bundle or object magic by chance
	}
	return b
}

var alignments = []int{1, 2, 3, 4, 5, 7, 8, 16, 24, 64, 100, 512, 4096}

func fileName(i int) string { return fmt.Sprintf("in%d", i) }
