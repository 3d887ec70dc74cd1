package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/extract"
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

func walkerOptions(f *inflateFlags, consume bool) (extract.Options, error) {
	limit, err := f.limit()
	return extract.Options{MaxUncompressedSize: limit, AllowNestedCompression: f.nested.On, Consume: consume}, err
}

func runExtract(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "write the device images found in offload containers to a directory or an archive",
		"[--target=ID] [--kind=K] [--triple=T] [-o DIR | --archive=FILE] FILE...")
	flt := addFilterFlags(s)
	dir := s.String("o", "dir", "output directory (default .)")
	archive := s.String("archive", "file", "write one ar archive instead of files")
	list := s.Bool("list", "only list what would be extracted")
	inflate := addInflateFlags(s)
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	var err error
	switch {
	case list.On:
		err = extractList(s.Positional, flt.filter(), inflate, stdout)
	case archive.Given():
		err = extractArchive(s.Positional, flt.filter(), inflate, archive.Value())
	default:
		out := "."
		if dir.Given() {
			out = dir.Value()
		}
		err = extractDir(s.Positional, flt.filter(), inflate, out, stdout)
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

// extractList prints each image as it is found: name, size and where.
func extractList(files []string, flt extract.Filter, inflate *inflateFlags, stdout io.Writer) error {
	opt, err := walkerOptions(inflate, true)
	if err != nil {
		return err
	}
	opt.SizesOnly = true
	w := extract.NewWalker(opt)
	defer w.Close()
	var names extract.Namer
	n := 0
	err = walkInputs(w, files, flt, func(im *extract.Image) error {
		n++
		_, err := fmt.Fprintf(stdout, "%s\t%d\t%s\n", names.Name(namePrefix, im), im.Size, strings.Join(im.Where, ": "))
		return err
	})
	if err == nil && n == 0 {
		err = noMatch(files)
	}
	return err
}

// extractDir writes each image as it is found, so that decompressed data
// is released as soon as its images are written; nothing is visible until
// all are.
func extractDir(files []string, flt extract.Filter, inflate *inflateFlags, dir string, stdout io.Writer) error {
	opt, err := walkerOptions(inflate, true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	w := extract.NewWalker(opt)
	defer w.Close()
	d := extract.NewDirWriter(dir, namePrefix)
	defer d.Abort()
	err = walkInputs(w, files, flt, func(im *extract.Image) error {
		_, err := d.Add(im)
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
func extractArchive(files []string, flt extract.Filter, inflate *inflateFlags, path string) error {
	opt, err := walkerOptions(inflate, false)
	if err != nil {
		return err
	}
	w := extract.NewWalker(opt)
	defer w.Close()
	ims, err := collect(w, files, flt)
	if err == nil && len(ims) == 0 {
		err = noMatch(files)
	}
	if err != nil {
		return err
	}
	return extract.ToArchive(path, namePrefix, ims)
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
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	err := convert(s.Positional, flt.filter(), inflate, to.Value(), out.Value(), hostTriple.Value(), align)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func convert(files []string, flt extract.Filter, inflate *inflateFlags, to, out, hostTriple string, align *cl.Option) error {
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
	opt, err := walkerOptions(inflate, false)
	if err != nil {
		return err
	}
	w := extract.NewWalker(opt)
	defer w.Close()
	flt.IncludeHost = false
	ims, err := collect(w, files, flt)
	if err != nil {
		return err
	}
	if len(ims) == 0 {
		return noMatch(files)
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
