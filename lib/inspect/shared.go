package inspect

// Payloads that several containers point at — bundle entries, sections or
// members over the same bytes — are described once: the first time they
// are met. Later references become nodes that say where the description
// is (Node.SameAs) and have no children, so that a few kilobytes of
// headers that all point at one nested bundle, a few levels deep, describe
// in O(entries + distinct payloads) nodes rather than fanout^levels.

// reference makes n the node for bytes already described by first
// (container.Walk met them before: Part.Same).
func reference(n, first *Node) *Node {
	n.Format, n.first = first.Format, first
	return n
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
