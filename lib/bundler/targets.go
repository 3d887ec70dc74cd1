package bundler

import (
	"sort"
	"strings"

	"github.com/rules-offload/rules_offload/lib/targetid"
)

// targets is the validated, standardized target list of a job.
type targets struct {
	ids     []targetid.EntryID
	std     []string // standardized IDs, in command-line order
	order   []int    // indexes of std in LLVM's order (its worklist StringMap)
	host    int      // index of the host target, -1 if none
	hipOnly bool     // every target is hip or hipv4: no host needed to bundle
}

// checkTargets validates cfg.Targets in LLVM's order of checks: duplicates,
// format, kind and triple, target-ID conflicts, host count. Unlike LLVM it
// also rejects two spellings that standardize to the same ID, which LLVM
// accepts and then writes a corrupt bundle for. Archive unbundling reads a
// processor after a three-dash triple as the processor
// (targetid.ParseArchiveTarget), as LLVM's test of it expects.
func checkTargets(cfg *Config, unbundle bool) (*targets, error) {
	parse := targetid.ParseEntryID
	if unbundle && cfg.FileType == "a" {
		parse = targetid.ParseArchiveTarget
	}
	t := &targets{host: -1, hipOnly: true}
	seenRaw := map[string]bool{}
	seenStd := map[string]string{}
	groups := map[string][]string{} // kind-triple → target IDs
	hosts := 0
	for i, raw := range cfg.Targets {
		if seenRaw[raw] {
			return nil, errorf("Duplicate targets are not allowed")
		}
		seenRaw[raw] = true
		id, err := parse(raw)
		if err != nil {
			return nil, &Error{Msg: err.Error(), Err: err}
		}
		if err := id.ValidateError(); err != nil {
			return nil, &Error{Msg: err.Error(), Err: err}
		}
		std := id.String()
		if prev, dup := seenStd[std]; dup {
			return nil, errorf("Duplicate targets are not allowed: '%s' and '%s' both standardize to '%s'", prev, raw, std)
		}
		seenStd[std] = raw
		key := id.Kind + "-" + id.TripleString()
		groups[key] = append(groups[key], id.TargetID)
		if id.IsHost() {
			hosts++
			t.host = i
		}
		if !id.IsHIP() {
			t.hipOnly = false
		}
		t.ids = append(t.ids, id)
		t.std = append(t.std, std)
	}
	t.order = stringMapOrder(t.std)
	if err := checkConflicts(groups); err != nil {
		return nil, err
	}
	if (unbundle && hosts > 1) || (!unbundle && hosts != 1 && !t.hipOnly) {
		return nil, errorf("expecting exactly one host target but got %d", hosts)
	}
	return t, nil
}

// checkConflicts applies clang's target-ID conflict rule per kind-triple,
// visiting groups in sorted order as LLVM's std::map does.
func checkConflicts(groups map[string][]string) error {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a, b, ok := targetid.Conflict(groups[k]); ok {
			return errorf("Cannot bundle inputs with conflicting targets: '%s-%s' and '%s-%s'", k, a, k, b)
		}
	}
	return nil
}

// missingList formats LLVM's "Can't find bundles for A, B, and C".
func missingList(names []string) string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var b strings.Builder
	b.WriteString("Can't find bundles for")
	last := len(sorted) - 1
	for i, n := range sorted {
		if i != 0 && last > 1 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		if i == last && i != 0 {
			b.WriteString("and ")
		}
		b.WriteString(n)
	}
	return b.String()
}
