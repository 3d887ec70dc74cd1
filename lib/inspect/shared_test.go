package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

func count(n *Node, f func(*Node) bool) int {
	k := 0
	if f(n) {
		k++
	}
	for _, c := range n.Children {
		k += count(c, f)
	}
	return k
}

// A bundle whose 10 entries all point at one nested bundle, 5 levels deep
// (10^5 paths to a leaf): one description per distinct payload, the rest
// references naming it, and nothing below a reference.
func TestSharedPayloadsDescribedOnce(t *testing.T) {
	in := hostile.SharedBundle(10, 5, []byte("leaf"))
	n := Inspect(bytes.NewReader(in), int64(len(in)), "s.bundle", Options{})
	if total := count(n, func(*Node) bool { return true }); total != 1+10*5 {
		t.Errorf("%d nodes, want 51", total)
	}
	refs := count(n, func(c *Node) bool { return c.SameAs != "" })
	if refs != 9*5 {
		t.Errorf("%d references, want 45", refs)
	}
	leaves := n.Children[0].Children[0].Children[0].Children[0].Children
	if leaves[1].SameAs != "s.bundle: openmp-x86_64-unknown-linux-gnu-l4-0: openmp-x86_64-unknown-linux-gnu-l3-0: "+
		"openmp-x86_64-unknown-linux-gnu-l2-0: openmp-x86_64-unknown-linux-gnu-l1-0: hipv4-amdgcn-amd-amdhsa--gfx900" {
		t.Errorf("same_as %q", leaves[1].SameAs)
	}
	if c := n.Children[1]; c.Format != "bundle" || len(c.Children) != 0 || !strings.HasSuffix(c.SameAs, "l4-0") {
		t.Errorf("second top-level entry: %+v", c)
	}
}
