package regcheck

import (
	"regexp"
	"sort"
	"strings"
)

// The diagnosis of a name looks for a kernel it could be a renaming of:
// the same CUB/Thrust kernel under another __CUDA_ARCH_LIST__, or the
// name sharing the longest prefix. Matching every name against every
// kernel costs names × kernels regular-expression matches per image, so
// each kernel list is indexed once, on first use: by its names without
// their CUB/Thrust namespace, and sorted, where the name sharing the
// longest prefix with another is one of its two neighbours.

// archList finds CUB's and Thrust's inline namespaces, which name the
// __CUDA_ARCH_LIST__ they were compiled with, with the length that
// precedes them in a mangled name: 21CUB_101702_700_900_NS.
var archList = regexp.MustCompile(`\d*(CUB|THRUST)_(\d+)_((?:\d+_)*\d+)_NS`)

// cubName splits a CUB/Thrust kernel's name into the name without its
// namespace and the __CUDA_ARCH_LIST__ the namespace names; ok is false
// for other names.
func cubName(name string) (bare, list string, ok bool) {
	m := archList.FindStringSubmatchIndex(name)
	if m == nil {
		return "", "", false
	}
	return archList.ReplaceAllString(name, ""), name[m[6]:m[7]], true
}

// indexed is one name of an index: its first position in the list indexed.
type indexed struct {
	name  string
	first int
}

// cub is a CUB/Thrust kernel's name and the __CUDA_ARCH_LIST__ it names.
type cub struct{ name, list string }

// nameIndex is a list of names indexed for the diagnosis.
type nameIndex struct {
	sorted []indexed      // distinct names, sorted
	bare   map[string]cub // CUB/Thrust names by bare name: the first in the list
}

func newIndex(names []string) *nameIndex {
	x := &nameIndex{bare: map[string]cub{}}
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		x.sorted = append(x.sorted, indexed{n, i})
		if bare, list, ok := cubName(n); ok {
			if _, dup := x.bare[bare]; !dup {
				x.bare[bare] = cub{n, list}
			}
		}
	}
	sort.Slice(x.sorted, func(a, b int) bool { return x.sorted[a].name < x.sorted[b].name })
	return x
}

// similar returns the name, other than name, that shares the longest
// common prefix with it, if that is at least half of name and 4 bytes; of
// several, the first in the list indexed.
func (x *nameIndex) similar(name string) string {
	s := x.sorted
	i := sort.Search(len(s), func(k int) bool { return s[k].name >= name })
	j := i
	if j < len(s) && s[j].name == name {
		j++
	}
	best := 0
	if i > 0 {
		best = commonPrefix(s[i-1].name, name)
	}
	if j < len(s) {
		best = max(best, commonPrefix(s[j].name, name))
	}
	if best*2 < len(name) || best < 4 {
		return ""
	}
	prefix := name[:best]
	pick := indexed{first: -1}
	for k := sort.Search(len(s), func(k int) bool { return s[k].name >= prefix }); k < len(s) && strings.HasPrefix(s[k].name, prefix); k++ {
		if s[k].name != name && (pick.first < 0 || s[k].first < pick.first) {
			pick = s[k]
		}
	}
	return pick.name
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// payload is what the images read from the same bytes share: the index of
// their kernels, made on first use.
type payload struct{ kernels *nameIndex }

func (im *Image) kernelIndex() *nameIndex {
	if im.payload.kernels == nil {
		im.payload.kernels = newIndex(im.Kernels)
	}
	return im.payload.kernels
}
