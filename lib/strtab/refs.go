package strtab

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
)

// Ref names a string for BuildRefs: the tail of strs[Of] from byte Skip on.
type Ref struct{ Of, Skip int }

// BuildRefs lays out, as Build does, the strings of strs and the tails of
// them that refs name, and returns the table and the offset of each ref's
// string in it: the same table and offsets as Build of all those strings.
//
// The work is proportional to the bytes of strs (their sort adds a
// logarithm), not to the lengths of the refs' strings: any number of refs
// may name tails of one long string, which Build would hash and compare
// once per tail (8,000 symbols naming tails of one 480,000-byte string
// took 3 s). Only strs are sorted and written; a tail is placed where
// Build would place it, in the last written string ending with it, found
// from the common tails of neighbouring written strings.
func BuildRefs(strs []string, refs []Ref) ([]byte, []uint64) {
	index := make(map[string]int, len(strs))
	var uniq []string
	of := make([]int, len(strs)) // strs[i] is uniq[of[i]]
	for i, s := range strs {
		u, ok := index[s]
		if !ok {
			u = len(uniq)
			index[s] = u
			uniq = append(uniq, s)
		}
		of[i] = u
	}
	order := make([]int, len(uniq))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return tailCompare(uniq[b], uniq[a]) })

	// Write as Build does, noting for each string the written one it ends
	// (holder), where each written one ends, and how long a tail each
	// shares with the next written one.
	var tab bytes.Buffer
	tab.WriteByte(0)
	holder := make([]int, len(uniq)) // index into ends; -1 for ""
	var ends, common []int
	prev := ""
	for _, u := range order {
		s := uniq[u]
		if strings.HasSuffix(prev, s) {
			holder[u] = len(ends) - 1
			continue
		}
		if len(ends) > 0 {
			common = append(common, commonTail(prev, s))
		}
		tab.WriteString(s)
		ends = append(ends, tab.Len())
		tab.WriteByte(0)
		holder[u] = len(ends) - 1
		prev = s
	}

	// A tail t of length l held by written string h goes, as in Build, at
	// the end of the last written string that ends with t: the last of the
	// run from h on whose neighbours share tails of at least l bytes.
	// Answered for all refs at once, longest tails first, joining
	// neighbours into runs as the length falls (union-find).
	offs := make([]uint64, len(refs))
	queries := make([]int, 0, len(refs))
	for i, r := range refs {
		if len(uniq[of[r.Of]])-r.Skip > 0 {
			queries = append(queries, i)
		}
	}
	tailLen := func(i int) int { return len(uniq[of[refs[i].Of]]) - refs[i].Skip }
	slices.SortFunc(queries, func(a, b int) int { return cmp.Compare(tailLen(b), tailLen(a)) })
	joins := make([]int, len(common)) // join k: written k with k+1
	for k := range joins {
		joins[k] = k
	}
	slices.SortFunc(joins, func(a, b int) int { return cmp.Compare(common[b], common[a]) })
	runs := newRuns(len(ends))
	next := 0
	for _, q := range queries {
		l := tailLen(q)
		for ; next < len(joins) && common[joins[next]] >= l; next++ {
			runs.join(joins[next])
		}
		last := runs.last(holder[of[refs[q].Of]])
		offs[q] = uint64(ends[last] - l)
	}
	return tab.Bytes(), offs
}

// commonTail is the length of the longest common tail of a and b.
func commonTail(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// runs is a union-find over the written strings, whose sets are runs of
// neighbours; each root knows the last of its run.
type runs struct{ parent, end []int }

func newRuns(n int) *runs {
	r := &runs{parent: make([]int, n), end: make([]int, n)}
	for i := range r.parent {
		r.parent[i], r.end[i] = i, i
	}
	return r
}

func (r *runs) find(i int) int {
	for r.parent[i] != i {
		r.parent[i] = r.parent[r.parent[i]]
		i = r.parent[i]
	}
	return i
}

// join puts written k and k+1 in one run.
func (r *runs) join(k int) {
	a, b := r.find(k), r.find(k+1)
	r.parent[a] = b
	r.end[b] = max(r.end[a], r.end[b])
}

// last is the last written string of i's run.
func (r *runs) last(i int) int { return r.end[r.find(i)] }
