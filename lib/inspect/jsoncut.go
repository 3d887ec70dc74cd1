package inspect

import (
	"strconv"

	"github.com/rules-offload/rules_offload/lib/shown"
)

// ForJSON returns a copy of the tree n for `inspect --json` in which every
// string taken from the input (names, details, same_as paths, errors, the
// entry's fields) longer than shown.MaxBrief bytes is cut to that prefix,
// and the node's Truncated says which fields were cut and their whole
// lengths. Any number of archive members or sections may name one long
// string, or tails of it: 4,000 members naming a 280,000-byte name made
// 1.1 GB of JSON. Cut, the document stays proportional to the tree, and
// says exactly what it left out.
func ForJSON(n *Node) *Node {
	c := *n
	c.Truncated = nil
	cut := func(field string, s *string) {
		if len(*s) > shown.MaxBrief {
			if c.Truncated == nil {
				c.Truncated = map[string]int{}
			}
			c.Truncated[field] = len(*s)
			*s = shown.Cut(*s)
		}
	}
	cut("name", &c.Name)
	cut("detail", &c.Detail)
	cut("same_as", &c.SameAs)
	cut("error", &c.Error)
	if n.Entry != nil {
		e := *n.Entry
		cut("entry.id", &e.ID)
		cut("entry.offload_kind", &e.OffloadKind)
		cut("entry.triple", &e.Triple)
		cut("entry.arch", &e.Arch)
		cut("entry.target_id", &e.TargetID)
		cut("entry.image_kind", &e.ImageKind)
		e.Features = append([]string(nil), e.Features...)
		for i := range e.Features {
			cut("entry.features."+strconv.Itoa(i), &e.Features[i])
		}
		e.Strings = append([]KV(nil), e.Strings...)
		for i := range e.Strings {
			cut("entry.strings."+strconv.Itoa(i)+".key", &e.Strings[i].Key)
			cut("entry.strings."+strconv.Itoa(i)+".value", &e.Strings[i].Value)
		}
		c.Entry = &e
	}
	c.Children = make([]*Node, len(n.Children))
	for i, ch := range n.Children {
		c.Children[i] = ForJSON(ch)
	}
	if len(n.Children) == 0 {
		c.Children = nil
	}
	return &c
}
