package inspect

import (
	"strings"
	"testing"
)

// ForJSON cuts every long string of every node to 4 KiB, says which and
// how long each was, and leaves the tree it was given as it was.
func TestForJSONCutsLongStrings(t *testing.T) {
	long := strings.Repeat("A", 5000)
	in := &Node{Name: "short", Detail: long, Children: []*Node{{
		Name:  long + "é",
		Entry: &Entry{ID: long, Features: []string{"xnack+", long}, Strings: []KV{{Key: "arch", Value: long}}},
	}}}
	out := ForJSON(in)
	if out.Name != "short" || len(out.Detail) != 4096 || len(out.Truncated) != 1 || out.Truncated["detail"] != 5000 {
		t.Errorf("root: name %q, %d-byte detail, truncated %v", out.Name, len(out.Detail), out.Truncated)
	}
	c := out.Children[0]
	want := map[string]int{"name": 5002, "entry.id": 5000, "entry.features.1": 5000, "entry.strings.0.value": 5000}
	if len(c.Truncated) != len(want) {
		t.Errorf("child truncated %v; want %v", c.Truncated, want)
	}
	for k, v := range want {
		if c.Truncated[k] != v {
			t.Errorf("child truncated[%q] = %d; want %d", k, c.Truncated[k], v)
		}
	}
	if len(c.Name) != 4096 || c.Entry.Features[0] != "xnack+" || len(c.Entry.Features[1]) != 4096 || c.Entry.Strings[0].Key != "arch" {
		t.Errorf("child: %d-byte name, features %d %d bytes, key %q", len(c.Name), len(c.Entry.Features[0]), len(c.Entry.Features[1]), c.Entry.Strings[0].Key)
	}
	if in.Detail != long || in.Children[0].Entry.ID != long || in.Children[0].Entry.Features[1] != long || in.Truncated != nil {
		t.Error("ForJSON changed the tree it was given")
	}
}
