package inspect

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
	return nil
}

// reference is the node for bytes already described by first.
func reference(v view, first *Node) *Node {
	return &Node{Format: first.Format, Offset: v.base, Size: v.size, Space: v.space, first: first}
}

// nameReferences fills in SameAs: the path of names, from the file down,
// of the node each reference repeats. A node is always described before
// anything refers to it, so it comes first in a depth-first walk.
func nameReferences(root *Node) {
	paths := map[*Node]string{}
	var walk func(n *Node, path string)
	walk = func(n *Node, path string) {
		switch {
		case path == "":
			path = n.Name
		case n.Name != "": // a CCOB in a sequence has none
			path += ": " + n.Name
		}
		paths[n] = path
		if n.first != nil {
			n.SameAs = paths[n.first]
		}
		for _, c := range n.Children {
			walk(c, path)
		}
	}
	walk(root, "")
}
