package inspect

import "strings"

// Payloads that several containers point at — bundle entries, sections or
// members over the same bytes — are described once: the first time they
// are met. Later references become nodes that say where the description
// is (Node.SameAs) and have no children, so that a few kilobytes of
// headers that all point at one nested bundle, a few levels deep, describe
// in O(entries + distinct payloads) nodes rather than fanout^levels.

// payload identifies some bytes: a range of an address space.
type payload struct {
	space        string
	offset, size int64
}

// described returns the node that first described the bytes of v, after
// which v is a reference; else it records n as their description and
// returns nil. Empty payloads are never shared.
func (w *walker) described(v view, n *Node) *Node {
	if v.size == 0 {
		return nil
	}
	key := payload{v.space, v.base, v.size}
	if first, ok := w.seen[key]; ok {
		return first
	}
	if w.seen == nil {
		w.seen = map[payload]*Node{}
	}
	w.seen[key] = n
	w.seenOrder = append(w.seenOrder, key)
	return nil
}

// forgetSince forgets the descriptions recorded since seenOrder had mark
// entries: a walk that is thrown away and done again (payload's first
// pass over a prefix) must not leave the second to find its own bytes
// already described.
func (w *walker) forgetSince(mark int) {
	for _, key := range w.seenOrder[mark:] {
		delete(w.seen, key)
	}
	w.seenOrder = w.seenOrder[:mark]
}

// reference is the node for bytes already described by first.
func reference(v view, first *Node) *Node {
	return &Node{Format: first.Format, Offset: v.base, Size: v.size, Space: v.space, first: first}
}

// nameReferences fills in SameAs: the path of names, from the file down,
// of the node each reference repeats. A node is always described before
// anything refers to it, so it comes first in a depth-first walk.
//
// Only the nodes referred to get a path, each made once and shared by its
// references: a path for every node would copy each name once per node
// below it (4,000 archive members named by one 280 KB long name were 1.1
// GB of paths).
func nameReferences(root *Node) {
	paths := map[*Node]string{}
	var mark func(n *Node)
	mark = func(n *Node) {
		if n.first != nil {
			paths[n.first] = ""
		}
		for _, c := range n.Children {
			mark(c)
		}
	}
	mark(root)
	if len(paths) == 0 {
		return
	}
	var names []string // the non-empty names from the file down
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Name != "" { // a CCOB in a sequence has none
			names = append(names, n.Name)
			defer func() { names = names[:len(names)-1] }()
		}
		if _, ok := paths[n]; ok {
			paths[n] = strings.Join(names, ": ")
		}
		if n.first != nil {
			n.SameAs = paths[n.first]
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
}
