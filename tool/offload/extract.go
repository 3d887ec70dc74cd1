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

// collect walks the inputs and returns the images the filter selects. The
// images read from the inputs, which stay open until the walker is closed.
func collect(w *extract.Walker, files []string, flt extract.Filter) ([]*extract.Image, error) {
	var ims []*extract.Image
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		w.OnClose(func() { f.Close() })
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		err = w.Walk(f, fi.Size(), path, func(im *extract.Image) error {
			if flt.Match(im) {
				ims = append(ims, im)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ims, nil
}

func runExtract(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "write the device images found in offload containers to a directory or an archive",
		"[--target=ID] [--kind=K] [--triple=T] [-o DIR | --archive=FILE] FILE...")
	flt := addFilterFlags(s)
	dir := s.String("o", "dir", "output directory (default .)")
	archive := s.String("archive", "file", "write one ar archive instead of files")
	list := s.Bool("list", "only list what would be extracted")
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	w := extract.NewWalker(extract.Options{})
	defer w.Close()
	ims, err := collect(w, s.Positional, flt.filter())
	if err == nil && len(ims) == 0 {
		err = fmt.Errorf("no device image matches the selection in %s", strings.Join(s.Positional, ", "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	// Each image is named after the input it came from.
	const prefix = ""
	switch {
	case list.On:
		for i, name := range extract.Names(prefix, ims) {
			fmt.Fprintf(stdout, "%s\t%d\t%s\n", name, ims[i].Size, strings.Join(ims[i].Where, ": "))
		}
	case archive.Given():
		err = extract.ToArchive(archive.Value(), prefix, ims)
	default:
		out := "."
		if dir.Given() {
			out = dir.Value()
		}
		var paths []string
		if err = os.MkdirAll(out, 0o755); err != nil {
			break
		}
		if paths, err = extract.ToDir(out, prefix, ims); err == nil {
			fmt.Fprintln(stdout, strings.Join(paths, "\n"))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
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
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	err := convert(s.Positional, flt.filter(), to.Value(), out.Value(), hostTriple.Value(), align)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func convert(files []string, flt extract.Filter, to, out, hostTriple string, align *cl.Option) error {
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
	w := extract.NewWalker(extract.Options{})
	defer w.Close()
	flt.IncludeHost = false
	ims, err := collect(w, files, flt)
	if err != nil {
		return err
	}
	if len(ims) == 0 {
		return fmt.Errorf("no device image matches the selection in %s", strings.Join(files, ", "))
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
