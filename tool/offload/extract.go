package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/extract"
	"github.com/rules-offload/rules_offload/lib/outbudget"
	"github.com/rules-offload/rules_offload/lib/shown"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{name: "extract", short: "pull device images out of any container", run: runExtract})
	register(&command{name: "convert", short: "turn bundles into OffloadBinaries and back", run: runConvert})
}

type filterFlags struct{ target, kind, triple, host *cl.Option }

func addFilterFlags(s *cl.Set) *filterFlags {
	return &filterFlags{
		target: s.List("target", "id", "select by bundle entry ID or target ID (gfx90a:xnack+, sm_90); repeatable", true),
		kind:   s.List("kind", "kind", "select by offload kind (hip, openmp, cuda, ...); repeatable", true),
		triple: s.List("triple", "triple", "select by target triple; repeatable", true),
		host:   s.Bool("host", "include host entries of bundles"),
	}
}

func (f *filterFlags) filter() extract.Filter {
	return extract.Filter{Targets: f.target.Values, Kinds: f.kind.Values, Triples: f.triple.Values, IncludeHost: f.host.On}
}

// walkInputs walks each input file and calls fn with the images the filter
// selects. The files stay open until the walker is closed.
func walkInputs(w *extract.Walker, files []string, flt extract.Filter, fn func(*extract.Image) error) error {
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		w.OnClose(func() { f.Close() })
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		err = w.Walk(f, fi.Size(), path, func(im *extract.Image) error {
			if flt.Match(im) {
				return fn(im)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// collect returns every image the filter selects; they stay readable until
// the walker is closed.
func collect(w *extract.Walker, files []string, flt extract.Filter) ([]*extract.Image, error) {
	var ims []*extract.Image
	err := walkInputs(w, files, flt, func(im *extract.Image) error {
		ims = append(ims, im)
		return nil
	})
	return ims, err
}

// walkerOptions are the walk's limits; containers met again are noted on
// stderr (their images are handed on once).
func walkerOptions(f *inflateFlags, consume bool, prog string, stderr io.Writer) (extract.Options, error) {
	limit, err := f.limit()
	return extract.Options{MaxUncompressedSize: limit, AllowNestedCompression: f.nested.On, Consume: consume,
		Repeated: func(where, first []string) {
			fmt.Fprintf(stderr, "%s: note: %s: same bytes as %s: their images are taken once\n", prog, shownPath(where), shownPath(first))
		}}, err
}

// inputSize is the total size of the input files, for the output budget.
func inputSize(files []string) uint64 {
	var n uint64
	for _, path := range files {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			n += uint64(fi.Size())
		}
	}
	return n
}

// outputBudget is the budget the flags give for writing what w finds in
// files: by default, what the files hold.
func outputBudget(out *outputFlags, w *extract.Walker, files []string) (*outbudget.Budget, error) {
	size := inputSize(files)
	return out.budget(func() uint64 { return size + w.Inflated() })
}

// writingWalker is the walker of a command that writes what it finds, and
// that output's budget; the caller closes the walker.
func writingWalker(inflate *inflateFlags, out *outputFlags, files []string, consume bool, prog string, stderr io.Writer) (*extract.Walker, *outbudget.Budget, error) {
	opt, err := walkerOptions(inflate, consume, prog, stderr)
	if err != nil {
		return nil, nil, err
	}
	w := extract.NewWalker(opt)
	b, err := outputBudget(out, w, files)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, b, nil
}

func runExtract(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "write the device images found in offload containers to a directory or an archive",
		"[--target=ID] [--kind=K] [--triple=T] [-o DIR | --archive=FILE] FILE...")
	flt := addFilterFlags(s)
	dir := s.String("o", "dir", "output directory (default .)")
	archive := s.String("archive", "file", "write one ar archive instead of files")
	list := s.Bool("list", "only list what would be extracted")
	inflate := addInflateFlags(s)
	outFlags := addOutputFlags(s)
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	var err error
	switch {
	case list.On:
		err = extractList(s.Positional, flt.filter(), inflate, prog, stdout, stderr)
	case archive.Given():
		err = extractArchive(s.Positional, flt.filter(), inflate, outFlags, archive.Value(), prog, stderr)
	default:
		out := "."
		if dir.Given() {
			out = dir.Value()
		}
		err = extractDir(s.Positional, flt.filter(), inflate, outFlags, out, prog, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func noMatch(files []string) error {
	return fmt.Errorf("no device image matches the selection in %s", strings.Join(files, ", "))
}

// Each image is named after the input it came from.
const namePrefix = ""

// extractList prints each image as it is found: name, size and where (and,
// for an image with the bytes of an earlier one, that one's name).
func extractList(files []string, flt extract.Filter, inflate *inflateFlags, prog string, stdout, stderr io.Writer) error {
	opt, err := walkerOptions(inflate, true, prog, stderr)
	if err != nil {
		return err
	}
	opt.SizesOnly = true
	w := extract.NewWalker(opt)
	defer w.Close()
	var names extract.Namer
	first := map[*extract.Image]string{} // name of the first image listed with some bytes
	n := 0
	err = walkInputs(w, files, flt, func(im *extract.Image) error {
		n++
		name := names.Name(namePrefix, im)
		key := im
		if im.Repeats != nil {
			key = im.Repeats
		}
		same := ""
		if f, ok := first[key]; ok {
			same = "\tsame bytes as " + f
		} else {
			first[key] = name
		}
		_, err := fmt.Fprintf(stdout, "%s\t%d\t%s%s\n", name, im.Size, shownPath(im.Where), same)
		return err
	})
	if err == nil && n == 0 {
		err = noMatch(files)
	}
	return err
}

// shownPath is where an image was found, each name escaped as needed.
func shownPath(where []string) string {
	parts := make([]string, len(where))
	for i, w := range where {
		parts[i] = shown.Name(w)
	}
	return strings.Join(parts, ": ")
}

// extractDir writes each image as it is found, so that decompressed data
// is released as soon as its images are written; nothing is visible until
// all are.
func extractDir(files []string, flt extract.Filter, inflate *inflateFlags, out *outputFlags, dir, prog string, stdout, stderr io.Writer) error {
	w, b, err := writingWalker(inflate, out, files, true, prog, stderr)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	d, err := extract.NewDirWriter(dir, namePrefix)
	if err != nil {
		return err
	}
	defer d.Abort()
	d.Budget = b
	err = walkInputs(w, files, flt, func(im *extract.Image) error {
		path, linked, err := d.Add(im)
		if linked != "" {
			fmt.Fprintf(stderr, "%s: note: %s: same bytes as %s: written once, hard-linked\n", prog, path, linked)
		}
		return err
	})
	if err == nil && len(d.Paths()) == 0 {
		err = noMatch(files)
	}
	if err == nil {
		err = d.Commit()
	}
	if err == nil {
		fmt.Fprintln(stdout, strings.Join(d.Paths(), "\n"))
	}
	return err
}

// extractArchive needs every image at once: an archive's symbol-free
// members are written in one pass after the walk.
func extractArchive(files []string, flt extract.Filter, inflate *inflateFlags, out *outputFlags, path, prog string, stderr io.Writer) error {
	w, b, err := writingWalker(inflate, out, files, false, prog, stderr)
	if err != nil {
		return err
	}
	defer w.Close()
	ims, err := collect(w, files, flt)
	if err == nil && len(ims) == 0 {
		err = noMatch(files)
	}
	if err != nil {
		return err
	}
	return extract.ToArchive(path, namePrefix, ims, b)
}

func usageOr(s *cl.Set, err error, help bool, prog string, stdout, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 2
	}
	s.PrintHelp(stdout)
	if help {
		return 0
	}
	return 2
}

func runConvert(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "convert device code between clang-offload-bundler bundles (old driver) and OffloadBinaries (new driver)",
		"--to=offload-binary|bundle -o OUT FILE...")
	flt := addFilterFlags(s)
	flt.host.Hidden = true // host entries never convert; --host-triple adds an empty one
	to := s.String("to", "format", "offload-binary or bundle")
	out := s.String("o", "file", "output file")
	hostTriple := s.String("host-triple", "triple", "add an empty host entry for this triple (bundles for OpenMP need one)")
	align := s.String("bundle-align", "n", "payload alignment of the bundle (default 4096, as clang uses for HIP)")
	inflate := addInflateFlags(s)
	outFlags := addOutputFlags(s)
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	err := convert(s.Positional, flt.filter(), inflate, outFlags, to.Value(), out.Value(), hostTriple.Value(), align, prog, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func convert(files []string, flt extract.Filter, inflate *inflateFlags, outFlags *outputFlags, to, out, hostTriple string, align *cl.Option, prog string, stderr io.Writer) error {
	if out == "" {
		return fmt.Errorf("no output file: give -o")
	}
	n := int64(4096)
	if align.Given() {
		v, err := strconv.ParseInt(align.Value(), 0, 64)
		if err != nil || v < 1 {
			return fmt.Errorf("--bundle-align wants a positive number, not %q", align.Value())
		}
		n = v
	}
	w, b, err := writingWalker(inflate, outFlags, files, false, prog, stderr)
	if err != nil {
		return err
	}
	defer w.Close()
	flt.IncludeHost = false
	ims, err := collect(w, files, flt)
	if err != nil {
		return err
	}
	if len(ims) == 0 {
		return noMatch(files)
	}
	if err := extract.Charge(b, ims); err != nil {
		return err
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort()
	switch to {
	case "offload-binary":
		err = extract.ToOffloadBinary(f, ims)
	case "bundle":
		err = extract.ToBundle(f, ims, hostTriple, n)
	default:
		err = fmt.Errorf("--to must be offload-binary or bundle, not %q", to)
	}
	if err != nil {
		return err
	}
	return f.Commit()
}
