// Package targetid parses offload bundle entry IDs and target IDs exactly as
// clang-offload-bundler 22.1.8 does.
//
// A bundle entry ID is "<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]",
// where the target ID is a processor optionally followed by ":feature+" or
// ":feature-" items (gfx90a:sramecc+:xnack-). The bundler standardizes every
// ID it writes (EntryID.String): the triple is normalized as llvm::Triple
// does, the environment is dropped for amdhsa, and target IDs whose processor
// is not an LLVM OffloadArch name are dropped silently.
//
// The rules come from clang/lib/Driver/OffloadBundler.cpp,
// clang/lib/Basic/TargetID.cpp, clang/lib/Basic/OffloadArch.cpp and
// llvm/lib/TargetParser/{Triple,TargetParser}.cpp. Everything here is a pure
// function of its arguments.
package targetid

import (
	"errors"
	"strings"

	"github.com/rules-offload/rules_offload/lib/offloadkind"
)

// ErrEntryIDFormat is returned for an ID with fewer than five '-'-separated
// fields. Its text is clang-offload-bundler's.
var ErrEntryIDFormat = errors.New("Targets need to follow the format '<offload kind>-<target triple>', " +
	"where '<target triple>' follows the format " +
	"'<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.")

// EntryID is a parsed bundle entry ID "<kind>-<arch>-<vendor>-<os>-<env>[-<target-id>]".
type EntryID struct {
	Raw  string // as given
	Kind string // first field, unvalidated

	// The triple's components after LLVM's normalisation (what String uses).
	// Env is empty for amdhsa, which the bundler writes as "<arch>-<vendor>-amdhsa-".
	Arch, Vendor, OS, Env string

	// TargetID is the sixth field if its processor (text before the first
	// ':') is a known OffloadArch name, else "". Features are not checked.
	TargetID string
	// RawTargetID is the sixth field as given ("" when there are five fields).
	RawTargetID string

	triple triple // OffloadTargetInfo::Triple: the raw fields, parsed but not normalized
}

// ParseEntryID splits s on '-' into at most six fields (the sixth keeps any
// further dashes, as in "gfx9-4-generic") and standardizes it. It fails only
// with ErrEntryIDFormat; kind and triple validity are reported by
// ValidateError, because LLVM standardizes invalid IDs too.
func ParseEntryID(s string) (EntryID, error) {
	f := strings.SplitN(s, "-", 6)
	if len(f) < 5 {
		return EntryID{}, ErrEntryIDFormat
	}
	e := EntryID{Raw: s, Kind: f[0], triple: newTriple(f[1], f[2], f[3], f[4])}
	if len(f) == 6 {
		e.RawTargetID = f[5]
		proc, _, _ := strings.Cut(f[5], ":")
		if KnownOffloadArch(proc) {
			e.TargetID = f[5]
		}
	}
	e.Arch, e.Vendor, e.OS, e.Env = e.standardTriple()
	return e, nil
}

// standardTriple is the triple part of OffloadTargetInfo::str().
func (e EntryID) standardTriple() (arch, vendor, os, env string) {
	var c []string
	if e.triple.os == "amdhsa" {
		c = append(strings.Split(normalize(e.triple.names, threeIdent), "-"), "")
	} else {
		c = strings.Split(normalize(e.triple.names, fourIdent), "-")
	}
	return c[0], c[1], c[2], c[3]
}

// String is the standardized ID the bundler writes and matches on
// (OffloadTargetInfo::str), e.g. "host-x86_64-unknown-linux-gnu-" or
// "hip-amdgcn-amd-amdhsa--gfx906". It always has six fields.
func (e EntryID) String() string {
	return e.Kind + "-" + e.Arch + "-" + e.Vendor + "-" + e.OS + "-" + e.Env + "-" + e.TargetID
}

// TripleString is the triple as LLVM prints it in "unknown target triple"
// errors and uses to group IDs for conflict checks: the four raw fields.
func (e EntryID) TripleString() string { return e.triple.str() }

// KindValid reports whether Kind is one the bundler accepts.
func (e EntryID) KindValid() bool {
	switch e.Kind {
	case "host", "openmp", "hip", "hipv4":
		return true
	}
	return false
}

// TripleValid reports whether the (raw) architecture field is known to LLVM.
// It is case-sensitive: "AMDGCN" is not.
func (e EntryID) TripleValid() bool { return e.triple.arch != "" }

// IsHost reports whether the kind is "host".
func (e EntryID) IsHost() bool { return e.Kind == "host" }

// IsHIP reports whether the kind is "hip" or "hipv4".
func (e EntryID) IsHIP() bool {
	k, _ := e.OffloadKind()
	return k == offloadkind.HIP
}

// OffloadKind is the offload kind of the entry (hip and hipv4 are HIP);
// false for the host entry and kinds the bundler does not know.
func (e EntryID) OffloadKind() (offloadkind.Kind, bool) { return offloadkind.FromBundle(e.Kind) }

// InvalidTargetError reports an entry ID with an unknown kind or triple.
type InvalidTargetError struct {
	Raw, Kind, Triple  string
	BadKind, BadTriple bool
}

// Error composes the message as clang-offload-bundler does.
func (e *InvalidTargetError) Error() string {
	var b strings.Builder
	b.WriteString("invalid target '" + e.Raw + "'")
	if e.BadKind {
		b.WriteString(", unknown offloading kind '" + e.Kind + "'")
	}
	if e.BadTriple {
		b.WriteString(", unknown target triple '" + e.Triple + "'")
	}
	return b.String()
}

// ValidateError returns nil, or an *InvalidTargetError whose text matches
// the bundler's "invalid target '<raw>', unknown offloading kind '<k>'[, unknown
// target triple '<t>']".
func (e EntryID) ValidateError() error {
	if e.KindValid() && e.TripleValid() {
		return nil
	}
	return &InvalidTargetError{
		Raw: e.Raw, Kind: e.Kind, Triple: e.TripleString(),
		BadKind: !e.KindValid(), BadTriple: !e.TripleValid(),
	}
}
