package bundler

import (
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/xxh3"
)

// LLVM keeps a binary bundle's entries in an llvm::StringMap keyed by ID and
// lists and unbundles them in its bucket order, not in file order; the
// targets to unbundle sit in another StringMap, keyed by standardized ID,
// which decides among several compatible ones. These functions replay such
// a map (LLVM 22's llvm/lib/Support/StringMap.cpp) so that --list prints
// what LLVM prints and unbundling chooses as LLVM does.

// inLLVMOrder returns the entries of one binary bundle in the order LLVM's
// StringMap iterates them when filled in file order.
func inLLVMOrder(es []bundle.Entry) []bundle.Entry {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	out := make([]bundle.Entry, 0, len(es))
	for _, i := range stringMapOrder(ids) {
		out = append(out, es[i])
	}
	return out
}

// stringMapOrder inserts keys into a replayed StringMap, in order, and
// returns their indexes in iteration order. A repeated key keeps the place
// of its first insertion, as StringMap's operator[] does, and is listed
// once (at its first index).
func stringMapOrder(keys []string) []int {
	m := strMap{slots: newSlots(16)}
	for i, k := range keys {
		m.insert(keys, i, uint32(xxh3.SumString(k)))
	}
	var out []int
	for _, s := range m.slots {
		if s.key >= 0 {
			out = append(out, s.key)
		}
	}
	return out
}

// strMap is the part of a StringMap the order depends on: buckets hold the
// 32-bit hash and the key, found by quadratic probing; the table starts at
// 16 buckets and doubles when more than three quarters are full. (Its
// same-size rehash needs erased entries, which never happen here.)
type strMap struct {
	slots []slot
	items int
}

type slot struct {
	hash uint32
	key  int // index into keys; -1 when empty
}

func newSlots(n int) []slot {
	s := make([]slot, n)
	for i := range s {
		s[i].key = -1
	}
	return s
}

func (m *strMap) insert(keys []string, i int, h uint32) {
	mask := uint32(len(m.slots) - 1)
	b := h & mask
	for probe := uint32(1); m.slots[b].key >= 0; probe++ {
		if s := m.slots[b]; s.hash == h && keys[s.key] == keys[i] {
			return
		}
		b = (b + probe) & mask
	}
	m.slots[b] = slot{hash: h, key: i}
	if m.items++; m.items*4 > len(m.slots)*3 {
		m.grow()
	}
}

// grow moves every entry, in bucket order, into a table twice the size.
func (m *strMap) grow() {
	next := newSlots(2 * len(m.slots))
	mask := uint32(len(next) - 1)
	for _, s := range m.slots {
		if s.key < 0 {
			continue
		}
		b := s.hash & mask
		for probe := uint32(1); next[b].key >= 0; probe++ {
			b = (b + probe) & mask
		}
		next[b] = s
	}
	m.slots = next
}
