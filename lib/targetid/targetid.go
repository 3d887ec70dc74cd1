package targetid

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Reasons a target ID is rejected by ParseTargetID (match with errors.Is).
var (
	ErrTargetIDFormat     = errors.New("targetid: malformed target ID")
	ErrUnknownProcessor   = errors.New("targetid: unknown processor")
	ErrUnsupportedFeature = errors.New("targetid: feature not supported by processor")
	ErrDuplicateFeature   = errors.New("targetid: feature given more than once")
)

// TargetIDError says which target ID was rejected and why.
type TargetIDError struct {
	ID     string
	Detail string // the offending part, if any
	Err    error  // one of the ErrXxx reasons above
}

func (e *TargetIDError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%v: %q", e.Err, e.ID)
	}
	return fmt.Sprintf("%v: %q in %q", e.Err, e.Detail, e.ID)
}

func (e *TargetIDError) Unwrap() error { return e.Err }

// Feature is one "name+" (On) or "name-" item of a target ID.
type Feature struct {
	Name string
	On   bool
}

func (f Feature) String() string {
	if f.On {
		return f.Name + "+"
	}
	return f.Name + "-"
}

// TargetID is a parsed target ID: a canonical processor and its features in
// the order given.
type TargetID struct {
	Processor string
	Features  []Feature
}

// Canonical is clang::getCanonicalTargetID: processor then features sorted
// by name, e.g. "gfx90a:sramecc+:xnack-".
func (t TargetID) Canonical() string {
	f := slices.Clone(t.Features)
	slices.SortFunc(f, func(a, b Feature) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString(t.Processor)
	for _, x := range f {
		b.WriteString(":" + x.String())
	}
	return b.String()
}

// Feature returns the setting of the named feature; ok is false when the
// target ID leaves it unspecified ("any").
func (t TargetID) Feature(name string) (on, ok bool) {
	for _, f := range t.Features {
		if f.Name == name {
			return f.On, true
		}
	}
	return false, false
}

// splitTargetID is TargetID.cpp's parseTargetIDWithFormatCheckingOnly. On
// failure it still returns the features recorded before the bad item,
// because getConflictTargetIDCombination reads them. An empty id yields an
// empty processor and no error.
func splitTargetID(id string) (proc string, feats []Feature, err error) {
	if id == "" {
		return "", nil, nil
	}
	proc, rest, _ := strings.Cut(id, ":")
	if proc == "" {
		return "", nil, &TargetIDError{ID: id, Err: ErrTargetIDFormat, Detail: "empty processor"}
	}
	for rest != "" {
		var item string
		item, rest, _ = strings.Cut(rest, ":")
		// An empty item has no sign: LLVM reads the preceding ':' as its sign.
		if item == "" || (item[len(item)-1] != '+' && item[len(item)-1] != '-') {
			return proc, feats, &TargetIDError{ID: id, Err: ErrTargetIDFormat, Detail: item}
		}
		f := Feature{Name: item[:len(item)-1], On: item[len(item)-1] == '+'}
		if slices.ContainsFunc(feats, func(g Feature) bool { return g.Name == f.Name }) {
			return proc, feats, &TargetIDError{ID: id, Err: ErrDuplicateFeature, Detail: f.Name}
		}
		feats = append(feats, f)
	}
	return proc, feats, nil
}

// ParseTargetID is clang::parseTargetID. triple is a target triple or just
// its architecture ("amdgcn-amd-amdhsa", "amdgcn", "nvptx64"). For AMDGPU
// triples the processor must be in LLVM 22's TargetParser table and is
// canonicalized ("tahiti" → "gfx600"); only xnack and sramecc, where that
// processor has them, are accepted as features. For other triples the
// processor is taken as is and no feature is accepted. An empty id fails.
func ParseTargetID(triple, id string) (TargetID, error) {
	arch, _, _ := strings.Cut(triple, "-")
	return parseTargetID(parseArch(arch), id)
}

func parseTargetID(arch, id string) (TargetID, error) {
	proc, feats, err := splitTargetID(id)
	if err != nil {
		return TargetID{}, err
	}
	canon := proc
	if arch == "amdgcn" || arch == "r600" {
		g, ok := lookupGPU(arch, proc)
		if !ok {
			canon = ""
		} else {
			canon = g.canonical
		}
	}
	if canon == "" {
		return TargetID{}, &TargetIDError{ID: id, Err: ErrUnknownProcessor, Detail: proc}
	}
	supported := supportedFeatures(arch, canon)
	for _, f := range feats {
		if !slices.Contains(supported, f.Name) {
			return TargetID{}, &TargetIDError{ID: id, Err: ErrUnsupportedFeature, Detail: f.Name}
		}
	}
	return TargetID{Processor: canon, Features: feats}, nil
}

// Conflict is clang::getConflictTargetIDCombination (LLVM 22) over a set of
// target IDs: for each processor, a feature must be given in all IDs or in
// none. ids are deduplicated and visited in byte order, as in a
// std::set<StringRef>; the first ID seen for a processor records its
// features, and a later ID conflicts if it names a feature the first lacks.
// The pair returned is (first seen, later).
//
// ids may be bare target IDs (gfx906:xnack+), as the bundler passes per
// "<kind>-<triple>" group, or whole bundle entry IDs, as
// -check-input-archive passes them; the text before the first ':' is the key.
//
// For a malformed ID LLVM dereferences an empty std::optional (undefined
// behaviour). As built in 22.1.8 that yields the processor of the previous
// ID in the same call, together with the features read before the bad item;
// Conflict reproduces that. When the first ID of a set is malformed the key
// is whatever was on the stack (observed to match no processor, and on one
// occasion "gfx906"); Conflict uses a key matching no processor.
func Conflict(ids []string) (a, b string, ok bool) {
	set := slices.Clone(ids)
	slices.Sort(set)
	set = slices.Compact(set)

	type info struct {
		id    string
		feats []Feature
	}
	seen := map[string]info{}
	const stale = "\x00uninitialised" // no real processor contains NUL
	slot := stale
	for _, id := range set {
		proc, feats, err := splitTargetID(id)
		if err == nil {
			slot = proc
		}
		first, found := seen[slot]
		if !found {
			seen[slot] = info{id, feats}
			continue
		}
		for _, f := range feats {
			if !slices.ContainsFunc(first.feats, func(g Feature) bool { return g.Name == f.Name }) {
				return first.id, id, true
			}
		}
	}
	return "", "", false
}

// BundleConflict is the bundler's conflict check over its -targets: the IDs
// are grouped by "<kind>-<raw triple>" (TripleString, not the standardized
// triple), groups are visited in byte order, and the first Conflict found
// is returned as two full IDs "<kind>-<triple>-<target id>", as in
// "Cannot bundle inputs with conflicting targets: 'A' and 'B'".
func BundleConflict(ids []EntryID) (a, b string, ok bool) {
	groups := map[string][]string{}
	for _, e := range ids {
		key := e.Kind + "-" + e.TripleString()
		groups[key] = append(groups[key], e.TargetID)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if x, y, bad := Conflict(groups[k]); bad {
			return k + "-" + x, k + "-" + y, true
		}
	}
	return "", "", false
}

// kindCompatible is OffloadTargetInfo::isOffloadKindCompatible.
func kindCompatible(co, req string, hipOpenMP bool) bool {
	if co == req || (co == "hip" && req == "hipv4") || (co == "hipv4" && req == "hip") {
		return true
	}
	if !hipOpenMP {
		return false
	}
	hipPrefix := func(s string) bool { return len(s) >= 3 && strings.EqualFold(s[:3], "hip") }
	return (hipPrefix(co) && req == "openmp") || (co == "openmp" && hipPrefix(req))
}

// Compatible is isCodeObjectCompatible: whether a bundle entry with ID co
// (as read from a file) satisfies the requested target req, as when
// unbundling with -targets=req [-hip-openmp-compatible]. Like the bundler,
// it standardizes req first. Kinds must match (hip and hipv4 are
// interchangeable; with hipOpenMPCompatible, hip* and openmp too), triples
// must be compatible, and unless the IDs match exactly, both target IDs must
// parse for their triple with the same processor, and every feature co
// specifies must be specified the same way in req.
func Compatible(co, req EntryID, hipOpenMPCompatible bool) bool {
	if r, err := ParseEntryID(req.String()); err == nil {
		req = r
	}
	tripleOK := co.triple.compatibleWith(req.triple)
	if co.Kind == req.Kind && tripleOK && co.TargetID == req.TargetID {
		return true
	}
	if !kindCompatible(co.Kind, req.Kind, hipOpenMPCompatible) || !tripleOK {
		return false
	}
	c, err1 := parseTargetID(co.triple.arch, co.TargetID)
	r, err2 := parseTargetID(req.triple.arch, req.TargetID)
	if err1 != nil || err2 != nil || c.Processor != r.Processor {
		return false
	}
	if len(c.Features) > len(r.Features) {
		return false
	}
	for _, f := range c.Features {
		if on, ok := r.Feature(f.Name); !ok || on != f.On {
			return false
		}
	}
	return true
}
