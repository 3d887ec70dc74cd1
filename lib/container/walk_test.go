package container

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// recorder is a Visitor that looks inside everything and notes each part
// as "depth:name:format", "+same" for bytes met before, "+deep" past the
// depth limit; Leave notes errors.
type recorder struct{ got []string }

func (r *recorder) Enter(p *Part) (bool, error) {
	s := fmt.Sprintf("%d:%s:%v", p.Depth, p.Name, p.Format)
	if p.Same != nil {
		s += "+same(" + p.Same.(string) + ")"
	}
	if p.TooDeep {
		s += "+deep"
	}
	p.Tag = p.Name
	r.got = append(r.got, s)
	return true, nil
}

func (r *recorder) Leave(p *Part, err error) error {
	if err != nil {
		r.got = append(r.got, "error "+p.Name+": "+err.Error())
	}
	return nil
}

func walkRecorded(t *testing.T, in []byte, opt WalkOptions) []string {
	t.Helper()
	if opt.Budget == nil {
		opt.Budget = budget.New(0)
	}
	temps := &Temps{Dir: t.TempDir()}
	defer temps.Close()
	opt.Temps = temps
	var r recorder
	if err := Walk(bytes.NewReader(in), int64(len(in)), "in", opt, &r); err != nil {
		t.Fatal(err)
	}
	if temps.Len() != 0 {
		t.Errorf("%d spill files open after the walk", temps.Len())
	}
	return r.got
}

// Entries over the same bytes are met once: later ones are Same (the Tag
// of the first) and not looked inside; the leaves of a shared nested
// bundle are met once per entry that points at them from the one walk of
// it.
func TestWalkMeetsBytesOnce(t *testing.T) {
	got := walkRecorded(t, hostile.SharedBundle(2, 2, []byte("leaf")), WalkOptions{})
	want := "0:in:bundle 1:openmp-x86_64-unknown-linux-gnu-l1-0:bundle 2:hipv4-amdgcn-amd-amdhsa--gfx900:data " +
		"2:hipv4-amdgcn-amd-amdhsa--gfx901:data+same(hipv4-amdgcn-amd-amdhsa--gfx900) " +
		"1:openmp-x86_64-unknown-linux-gnu-l1-1:bundle+same(openmp-x86_64-unknown-linux-gnu-l1-0)"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// A compressed record is a Record part at its sequence's depth + 1, its
// payload a part at the record's depth; a part deeper than MaxDepth is
// met, TooDeep, and not looked inside.
func TestWalkRecordsAndDepth(t *testing.T) {
	leaf := append(hostile.BundleHeader([]string{"hipv4-amdgcn-amd-amdhsa--gfx906"}, []int64{4}), "code"...)
	in := hostile.CCOBZlib(leaf)
	got := walkRecorded(t, in, WalkOptions{Prefix: 1 << 10})
	want := "0:in:ccob 1:ccob@0:data 1::bundle 2:hipv4-amdgcn-amd-amdhsa--gfx906:data"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	got = walkRecorded(t, in, WalkOptions{MaxDepth: 1})
	want = "0:in:ccob 1:ccob@0:data 1::bundle 2:hipv4-amdgcn-amd-amdhsa--gfx906:data+deep"
	if strings.Join(got, " ") != want {
		t.Errorf("MaxDepth 1: got  %s\nwant %s", strings.Join(got, " "), want)
	}
}
