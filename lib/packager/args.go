package packager

import (
	"strings"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// ImageArgs is one --image value, "key=value,key=value,...", parsed as LLVM
// 22's llvm-offload-binary does: the value is split on ',' and each piece on
// its first '=' (a piece without '=' is a key with an empty value); a
// repeated key gets its values joined with ','.
//
// The pairs are kept in the iteration order of the DenseMap LLVM stores them
// in, because that order becomes the order of string entries in the packaged
// binary.
type ImageArgs struct{ pairs []offloadbin.KV }

// ParseImageArgs parses one --image value.
func ParseImageArgs(s string) ImageArgs {
	var m denseMap
	for _, piece := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(piece, "=")
		if i, ok := m.find(k); ok {
			m.vals[i] += "," + v
			continue
		}
		m.insert(k, v)
	}
	return ImageArgs{pairs: m.ordered()}
}

// Get returns the value of key.
func (a ImageArgs) Get(key string) (string, bool) {
	for _, kv := range a.pairs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Pairs returns every key and value, in LLVM's iteration order.
func (a ImageArgs) Pairs() []offloadbin.KV {
	return append([]offloadbin.KV(nil), a.pairs...)
}

// denseMap mimics the bucket layout of llvm::DenseMap<StringRef, StringRef>
// (open addressing, quadratic probing, 64 buckets at first, doubled when an
// insertion would make it 3/4 full; nothing is ever erased here), so that
// iterating its buckets gives LLVM's iteration order.
type denseMap struct {
	buckets []int // index into keys, or -1
	keys    []string
	vals    []string
}

func (m *denseMap) probe(k string) (bucket int, found bool) {
	mask := uint32(len(m.buckets) - 1)
	b := uint32(llvmHashString(k)) & mask
	for step := uint32(1); ; step++ {
		i := m.buckets[b]
		if i < 0 {
			return int(b), false
		}
		if m.keys[i] == k {
			return int(b), true
		}
		b = (b + step) & mask
	}
}

func (m *denseMap) find(k string) (int, bool) {
	if len(m.buckets) == 0 {
		return 0, false
	}
	b, ok := m.probe(k)
	if !ok {
		return 0, false
	}
	return m.buckets[b], true
}

func (m *denseMap) insert(k, v string) {
	if n := len(m.buckets); (len(m.keys)+1)*4 >= n*3 {
		m.grow(max(64, 2*n))
	}
	b, _ := m.probe(k)
	m.buckets[b] = len(m.keys)
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
}

// grow re-inserts the entries in old bucket order, as DenseMap::grow does.
func (m *denseMap) grow(n int) {
	old := m.buckets
	m.buckets = make([]int, n)
	for i := range m.buckets {
		m.buckets[i] = -1
	}
	for _, i := range old {
		if i >= 0 {
			b, _ := m.probe(m.keys[i])
			m.buckets[b] = i
		}
	}
}

func (m *denseMap) ordered() []offloadbin.KV {
	out := make([]offloadbin.KV, 0, len(m.keys))
	for _, i := range m.buckets {
		if i >= 0 {
			out = append(out, offloadbin.KV{Key: m.keys[i], Value: m.vals[i]})
		}
	}
	return out
}
