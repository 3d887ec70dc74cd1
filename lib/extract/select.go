package extract

import (
	"path/filepath"
	"strings"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/outbudget"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// Filter selects images. Empty lists select everything but host entries.
type Filter struct {
	// Targets are bundle entry IDs (matched with the bundler's
	// compatibility rules) or target IDs such as gfx90a:xnack+ or sm_90
	// (an image matches when its processor is the same and each feature it
	// fixes is requested with the same sign).
	Targets []string
	// Kinds are offload kinds; hip also selects hipv4.
	Kinds []string
	// Triples select by target triple, ignoring a trailing empty environment.
	Triples     []string
	IncludeHost bool
}

// Match reports whether the filter selects im.
func (f Filter) Match(im *Image) bool {
	if im.OffloadKind == "host" && !f.IncludeHost && !contains(f.Kinds, "host") {
		return false
	}
	if len(f.Kinds) > 0 && !contains(f.Kinds, im.OffloadKind) && !(im.OffloadKind == "hipv4" && contains(f.Kinds, "hip")) {
		return false
	}
	if len(f.Triples) > 0 && !contains(f.Triples, strings.TrimSuffix(im.Triple, "-")) {
		return false
	}
	if len(f.Targets) == 0 {
		return true
	}
	for _, t := range f.Targets {
		if matchTarget(im, t) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func matchTarget(im *Image, t string) bool {
	if strings.Count(t, "-") >= 4 {
		req, err := targetid.ParseEntryID(t)
		if err != nil || im.BundleID == "" {
			return false
		}
		co, err := targetid.ParseEntryID(im.BundleID)
		return err == nil && targetid.Compatible(co, req, false)
	}
	return targetIDCompatible(im.TargetID, t)
}

// targetIDCompatible applies the bundler's feature rules to bare target IDs:
// same processor; the image may not fix a feature the request leaves open
// or fixes the other way.
func targetIDCompatible(image, req string) bool {
	ip, ifs := splitTargetID(image)
	rp, rfs := splitTargetID(req)
	if ip != rp || len(ifs) > len(rfs) {
		return false
	}
	for name, on := range ifs {
		if r, ok := rfs[name]; !ok || r != on {
			return false
		}
	}
	return true
}

func splitTargetID(id string) (string, map[string]bool) {
	parts := strings.Split(id, ":")
	feats := map[string]bool{}
	for _, f := range parts[1:] {
		if n := len(f); n > 1 && (f[n-1] == '+' || f[n-1] == '-') {
			feats[f[:n-1]] = f[n-1] == '+'
		}
	}
	return parts[0], feats
}

// FileName is a safe, descriptive file name for an image:
// <prefix>-<kind>-<triple>-<target ID>.<ext>, with every character outside
// [A-Za-z0-9._+-] (':' and '/' included) replaced by '_', so that no name
// taken from a hostile input can leave the output directory. An empty
// prefix means the name of the file the image came from, without its
// directory and extension.
func FileName(prefix string, im *Image) string {
	if prefix == "" && len(im.Where) > 0 {
		b := filepath.Base(im.Where[0])
		prefix = strings.TrimSuffix(b, filepath.Ext(b))
	}
	parts := []string{prefix, im.OffloadKind, strings.TrimSuffix(im.Triple, "-")}
	if im.TargetID != "" {
		parts = append(parts, im.TargetID)
	}
	name := sanitize(strings.Join(nonEmpty(parts), "-"))
	return name + "." + Ext(im.ImageKind)
}

// Ext is the file extension for an image kind.
func Ext(k offloadbin.ImageKind) string {
	switch k {
	case offloadbin.ImageNone:
		return "bin"
	case offloadbin.ImageSPIRV:
		return "spv"
	}
	return k.Ext()
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	s = strings.TrimLeft(string(b), ".")
	if s == "" {
		s = "image"
	}
	return s
}

// Charge charges the images, each a file of its size, to b, before any
// is written.
func Charge(b *outbudget.Budget, ims []*Image) error {
	for _, im := range ims {
		if err := b.Charge(uint64(im.Size)); err != nil {
			return err
		}
	}
	return nil
}

// ToArchive writes the images as members of a deterministic ar archive,
// after charging them to b (which may be nil).
func ToArchive(path, prefix string, ims []*Image, b *outbudget.Budget) error {
	if err := Charge(b, ims); err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	names := Names(prefix, ims)
	ms := make([]ar.WriterMember, len(ims))
	for i, im := range ims {
		ms[i] = ar.WriterMember{Name: names[i], Size: im.Size, Data: im.Open()}
	}
	if err := ar.WriteArchive(f, ms); err != nil {
		return err
	}
	return f.Commit()
}
