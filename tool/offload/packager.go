package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/outbudget"
	"github.com/rules-offload/rules_offload/lib/packager"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:    "packager",
		aliases: []string{"llvm-offload-binary", "clang-offload-packager"},
		short:   "package and extract OffloadBinary images (a drop-in llvm-offload-binary)",
		run:     runPackager,
	})
}

// Help texts of llvm-offload-binary-22, with %s for the program: -h and a
// bare invocation print the plain list, --help and --help-hidden LLVM's
// categorized form.
const (
	packagerHelpHead = `OVERVIEW: A utility for bundling several object files into a single binary.
The output binary can then be embedded into the host section table
to create a fatbinary containing offloading code.

USAGE: %s [options] Extract from <file>.

OPTIONS:
`
	packagerHelpList = `  --archive                   - Write extracted files to a static archive
  --help                      - Display available options (--help-hidden for more)
  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are 'file' and 'triple'.
  -o <file>                   - Write output to <file>.
  --version                   - Display the version of this program
`
	packagerHelpGeneric = `
Generic Options:

  --help                      - Display available options (--help-hidden for more)
  --help-list                 - Display list of available options (--help-list-hidden for more)
  --version                   - Display the version of this program
`
	packagerHelpGenericHidden = `
Generic Options:

  --help                      - Display available options (--help-hidden for more)
  --help-hidden               - Display all available options
  --help-list                 - Display list of available options (--help-list-hidden for more)
  --help-list-hidden          - Display list of all available options
  --print-all-options         - Print all option values after command line parsing
  --print-options             - Print non-default options after command line parsing
  --version                   - Display the version of this program
`
	packagerHelpOwn = `
llvm-offload-binary options:

  --archive                   - Write extracted files to a static archive
  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are 'file' and 'triple'.
  -o <file>                   - Write output to <file>.
`
)

type packagerFlags struct {
	set                              *cl.Set
	output, images, archive, h, vers *cl.Option
	help, helpHidden, helpList       *cl.Option
	// Our options, only when run as "offload packager": the drop-in keeps
	// exactly LLVM 22's command line.
	formatVersion, compress *cl.Option
}

// Help lines of our own options, in LLVM's layout.
var packagerHelpOurs = fmt.Sprintf("  %-28s- %s\n  %-28s- %s\n",
	"--compress=<zlib|zstd>", "Compress the binary (needs --format-version=3)",
	"--format-version=<1|2|3>", "OffloadBinary version: 1 (LLVM 22, one binary per image; default), 2 or 3 (LLVM main, one binary holding all images)")

func newPackagerFlags(prog string) *packagerFlags {
	s := cl.NewSet(prog, "", "")
	f := &packagerFlags{set: s}
	if ownCommand(prog) {
		f.formatVersion = s.String("format-version", "1|2|3", "")
		f.compress = s.String("compress", "zlib|zstd", "")
	}
	f.output = s.String("o", "file", "Write output to <file>.")
	f.images = s.List("image", "<key>=<value>,...", "List of key and value arguments. Required keywords are 'file' and 'triple'.", false)
	f.archive = s.Bool("archive", "Write extracted files to a static archive")
	f.h = s.Bool("h", "Alias for -help")
	f.help = s.Bool("help", "Display available options")
	f.helpHidden = s.Bool("help-hidden", "Display all available options")
	f.helpList = s.Bool("help-list", "Display list of available options")
	f.vers = s.Bool("version", "Display the version of this program")
	return f
}

// printHelp handles LLVM's built-in help options, which print and exit as
// soon as they are parsed; it reports whether one was given.
func (f *packagerFlags) printHelp(prog string, w io.Writer) bool {
	switch {
	case f.help.On:
		fmt.Fprintf(w, packagerHelpHead+packagerHelpGeneric+f.withOurs(packagerHelpOwn), prog)
	case f.helpHidden.On:
		fmt.Fprintf(w, packagerHelpHead+packagerHelpGenericHidden+f.withOurs(packagerHelpOwn), prog)
	case f.helpList.On:
		fmt.Fprintf(w, packagerHelpHead+f.withOurs(packagerHelpList), prog)
	default:
		return false
	}
	return true
}

// withOurs adds our options to an option list, in sorted place after
// --archive, when they are declared.
func (f *packagerFlags) withOurs(list string) string {
	if f.formatVersion == nil {
		return list
	}
	const after = "Write extracted files to a static archive\n"
	return strings.Replace(list, after, after+packagerHelpOurs, 1)
}

// ownCommand reports whether prog is "offload packager" rather than a
// drop-in name such as llvm-offload-binary.
func ownCommand(prog string) bool { return strings.Contains(prog, " ") }

// format reads --format-version and --compress.
func (f *packagerFlags) format() (packager.Format, error) {
	var pf packager.Format
	if f.formatVersion == nil {
		return pf, nil
	}
	switch v := f.formatVersion.Value(); v {
	case "", "1", "2", "3":
		if v != "" {
			pf.Version = uint32(v[0] - '0')
		}
	default:
		return pf, fmt.Errorf("--format-version must be 1, 2 or 3, not %q", v)
	}
	c, err := offloadbin.ParseCompression(f.compress.Value())
	if err != nil {
		return pf, fmt.Errorf("--compress must be zlib or zstd, not %q", f.compress.Value())
	}
	if c != offloadbin.NoCompression && pf.Version != 3 {
		return pf, errors.New("--compress needs --format-version=3")
	}
	pf.Compression = c
	return pf, nil
}

func runPackager(prog string, args []string, stdout, stderr io.Writer) int {
	f := newPackagerFlags(prog)
	if err := f.set.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 1
	}
	if f.printHelp(prog, stdout) {
		return 0
	}
	if len(f.set.Positional) > 1 {
		fmt.Fprintf(stderr, "%s: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: %s --help\n", prog, prog)
		return 1
	}
	if f.vers.On {
		fmt.Fprintf(stdout, "rules_offload llvm-offload-binary version %s (offload %s)\n", llvmVersion, version)
		return 0
	}
	// LLVM checks the stem of argv[0], so clang-offload-packager-22 does not warn.
	if strings.HasSuffix(strings.TrimSuffix(prog, filepath.Ext(prog)), "clang-offload-packager") {
		fmt.Fprintln(stderr, "warning: 'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead.")
	}
	output, input := f.output.Value(), ""
	if len(f.set.Positional) == 1 {
		input = f.set.Positional[0]
	}
	if f.h.On || output == "" && input == "" {
		fmt.Fprintf(stdout, packagerHelpHead+f.withOurs(packagerHelpList), prog)
		return 0
	}
	format, err := f.format()
	switch {
	case err != nil:
	case input != "" && output != "":
		err = errors.New("Packaging to an output file and extracting from an input file are mutually exclusive.")
	case output != "":
		err = packageImages(output, f.images.Values, format, stdout)
	default:
		err = extractImages(prog, input, f.images.Values, f.archive.On, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", prog, packagerMessage(prog, err))
		return 1
	}
	return 0
}

// packageImages is llvm-offload-binary -o: one OffloadBinary per image
// (format version 1), or one holding all images (2 and 3), written
// atomically.
func packageImages(output string, images []string, format packager.Format, stdout io.Writer) error {
	srcs, err := packager.Sources(images)
	if err != nil {
		return err
	}
	closeAll, err := packager.OpenSources(srcs, os.Stdin)
	if err != nil {
		return err
	}
	defer closeAll()
	if output == "-" {
		_, err := packager.PackageFormat(stdout, srcs, format)
		return err
	}
	out, err := atomicfile.Create(output)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := packager.PackageFormat(out, srcs, format); err != nil {
		return err
	}
	return out.Commit()
}

// inputError marks a failure to open the extraction input, which LLVM
// reports with the file name.
type inputError struct {
	name string
	err  error
}

func (e *inputError) Error() string { return "'" + e.name + "': " + e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// extractImages is llvm-offload-binary <input>: extract the images matching
// each --image filter.
func extractImages(prog, input string, images []string, archive bool, stderr io.Writer) error {
	var r io.ReaderAt
	var size int64
	name := input
	if input == "-" {
		src, err := packager.SpoolStdin(os.Stdin)
		if err != nil {
			return &inputError{input, err}
		}
		defer src.Close()
		r, size, name = src.R, src.Size, "<stdin>"
	} else {
		fh, err := os.Open(input)
		if err != nil {
			return &inputError{input, err}
		}
		defer fh.Close()
		fi, err := fh.Stat()
		if err == nil && fi.IsDir() {
			err = syscall.EISDIR
		}
		if err != nil {
			return &inputError{input, err}
		}
		r, size = fh, fi.Size()
	}
	// Large compressed binaries inflate to unlinked temporary files, which
	// live until the images are written.
	spilled := container.Temps{Pattern: "offload-packager-*"}
	defer spilled.Close()
	// The LLVM personality takes no flag to raise the budget (its --help
	// stays LLVM's); the error says where a larger one can be had.
	b := budget.New(0)
	b.SetHint("this command has no option to raise it; `offload extract --max-uncompressed-size` reads larger inputs")
	found, err := packager.Scan(r, size, name, offloadbin.WithBudget(b), offloadbin.WithSpill(spilled.New))
	if err != nil {
		return err
	}
	plan, err := packager.PlanExtraction(input, found, images, archive)
	if err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(stderr, "%s: warning: %s\n", prog, w)
	}
	out := &outbudget.Budget{Held: func() uint64 { return uint64(size) + b.Used() },
		Hint: "this command has no option to raise them; `offload extract --max-output-size` writes more"}
	if err := plan.Charge(out); err != nil {
		return err
	}
	return plan.Write()
}

// packagerMessage words an error as LLVM does. As a drop-in (invoked as
// llvm-offload-binary) it prints LLVM's text; as "offload packager" it keeps
// our more precise text for malformed inputs.
func packagerMessage(prog string, err error) string {
	dropIn := !strings.Contains(prog, " ")
	prefix := ""
	var ie *inputError
	if errors.As(err, &ie) {
		prefix = "'" + ie.name + "': "
	}
	var errno syscall.Errno
	var worded interface{ LLVMMessage() string }
	switch {
	case errors.As(err, &errno):
		// LLVM prints strerror text without the path for images and outputs.
		s := errno.Error()
		return prefix + strings.ToUpper(s[:1]) + s[1:]
	case dropIn && errors.As(err, &worded):
		// A defect LLVM words with a message of its own.
		return worded.LLVMMessage()
	case dropIn && errors.Is(err, offloadbin.ErrTruncated):
		return "The end of the file was unexpectedly encountered"
	case dropIn && errors.Is(err, offloadbin.ErrFormat):
		return "Invalid data was encountered while parsing the file"
	}
	return err.Error()
}
