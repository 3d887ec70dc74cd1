package inspect

import "strings"

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
