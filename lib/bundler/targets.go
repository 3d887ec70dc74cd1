package bundler

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rules-offload/rules_offload/lib/targetid"
)

// Error is a bundler failure. Msg follows LLVM's wording; File, when set,
// names the file the problem is in, in front, where LLVM names it too.
// Context is ours: where the problem is, for messages LLVM prints without
// a file name, so it follows LLVM's text instead of preceding it.
type Error struct {
	File    string
	Msg     string
	Err     error // underlying cause, if any
	Context string
}

func (e *Error) Error() string {
	s := e.Msg
	if e.File != "" {
		s = fmt.Sprintf("'%s': %s", e.File, e.Msg)
	}
	if e.Context != "" {
		s += " (" + e.Context + ")"
	}
	return s
}

// inFile reports a problem found in file whose LLVM message names no file:
// the name goes after LLVM's text. member, if set, is the archive member.
func inFile(file, member string, err error) error {
	where := fmt.Sprintf("in '%s'", file)
	if member != "" {
		where += ", member " + member
	}
	var be *Error
	if errors.As(err, &be) {
		return &Error{Msg: be.Msg, Err: be.Err, Context: where}
	}
	return &Error{Msg: describe(err), Err: err, Context: where}
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// fileError reports a problem with a named file, as LLVM's createFileError.
func fileError(file string, err error) error {
	var be *Error
	if errors.As(err, &be) && be.File == "" {
		return &Error{File: file, Msg: be.Msg, Err: be.Err}
	}
	if errors.As(err, &be) {
		return err
	}
	return &Error{File: file, Msg: describe(err), Err: err}
}

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
