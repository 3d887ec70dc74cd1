package regcheck

import (
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/shown"
)

// A report is for a person, so it is bounded: a record can name as many
// kernels, and its fat binaries hold as many images, as its bytes allow,
// and a problem per name that lists every image would make output (and
// the memory that holds it) grow with their product. The first problems
// and notes are listed in full and the rest counted; a line names the
// first images or targets and counts the rest.
const (
	maxListed = 100 // problems, and notes, listed
	maxNamed  = 32  // images or targets named in one line
)

// Report is the outcome: a summary line per unit and the problems found.
// Every name in it is printable (shown.Name).
type Report struct {
	Summary  []string
	Problems []string // the first maxListed
	Notes    []string // the first maxListed
	// MoreProblems and MoreNotes count those found past the first
	// maxListed, which are not listed.
	MoreProblems, MoreNotes int
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Count is the number of problems found, listed or not.
func (r *Report) Count() int { return len(r.Problems) + r.MoreProblems }

// Write prints the report.
func (r *Report) Write(w io.Writer) {
	for _, s := range r.Summary {
		fmt.Fprintln(w, s)
	}
	for _, s := range r.Notes {
		fmt.Fprintln(w, "note:", s)
	}
	if r.MoreNotes > 0 {
		fmt.Fprintf(w, "note: ... and %d more notes\n", r.MoreNotes)
	}
	for _, s := range r.Problems {
		fmt.Fprintln(w, "error:", s)
	}
	if r.MoreProblems > 0 {
		fmt.Fprintf(w, "error: ... and %d more problems\n", r.MoreProblems)
	}
}

// problem lists the problem msg makes, or counts it once maxListed are
// listed: msg, which may be costly (it names images, diagnoses), runs
// only for those listed.
func (r *Report) problem(msg func() string) {
	if len(r.Problems) < maxListed {
		r.Problems = append(r.Problems, msg())
	} else {
		r.MoreProblems++
	}
}

// note is problem for notes.
func (r *Report) note(msg func() string) {
	if len(r.Notes) < maxListed {
		r.Notes = append(r.Notes, msg())
	} else {
		r.MoreNotes++
	}
}

// listing reports whether a problem found now would be listed.
func (r *Report) listing() bool { return len(r.Problems) < maxListed }

// named joins the first maxNamed of items, names from the input, shown
// printable, and counts the rest: "sm_70, sm_90 and 3 more".
func named(items []string) string {
	if len(items) == 0 {
		return "nothing"
	}
	n := min(len(items), maxNamed)
	s := make([]string, n)
	for i, it := range items[:n] {
		s[i] = shown.Name(it)
	}
	out := strings.Join(s, ", ")
	if len(items) > n {
		out += fmt.Sprintf(" and %d more", len(items)-n)
	}
	return out
}

// imageList names the first maxNamed images ("sm_70 cubin, compute_90
// PTX") and counts the rest.
func imageList(imgs []*Image) string {
	n := min(len(imgs), maxNamed)
	s := make([]string, n)
	for i, im := range imgs[:n] {
		s[i] = shown.Name(im.Target) + " " + im.Format
	}
	out := strings.Join(s, ", ")
	if len(imgs) > n {
		out += fmt.Sprintf(" and %d more", len(imgs)-n)
	}
	return out
}
