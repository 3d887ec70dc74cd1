package main

// Registration code for device images: the native "wrap" front end and the
// drop-in personalities llvm-offload-wrapper (LLVM 22) and
// clang-offload-wrapper (LLVM <= 14, AMD variant). The bitcode is written
// for the LLVM that reads it: typed pointers for clang-offload-wrapper and
// wrap --entries=legacy (unless --llvm says later), LLVM 22's form for
// llvm-offload-wrapper.
//
// Like LLVM's tools, their personalities here write bitcode (lib/ir's
// writer: llvm-dis prints it as it prints LLVM's) whatever -o is called,
// except a name ending in .o or .obj, for which they write a finished ELF
// object where the host is an ELF x86-64 or AArch64 one.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/packager"
	"github.com/rules-offload/rules_offload/lib/wrapper"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:  "wrap",
		short: "generate host code registering device images (IR, C, assembly or an object)",
		run:   runWrap,
	})
	register(&command{
		name:    "wrapper",
		aliases: []string{"llvm-offload-wrapper", "clang-offload-wrapper"},
		short:   "a drop-in llvm-offload-wrapper (or clang-offload-wrapper by that name)",
		run:     runWrapper,
	})
}

// hostTriple is llvm-offload-wrapper's default --triple: the host's.
func hostTriple() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-unknown-linux-gnu"
	}
	return wrapper.DefaultTriple
}

// wrapJob is what every front end resolves its command line to.
type wrapJob struct {
	opts    wrapper.Options
	emit    string // ll, bc, c, s or obj
	output  string
	inputs  []string
	archs   []string // per input; nil when no --offload-arch was given
	notes   bool
	inline  bool
	version string // producer version for the notes
}

func runWrapper(prog string, args []string, stdout, stderr io.Writer) int {
	if strings.HasPrefix(prog, "clang-offload-wrapper") {
		return runClangOffloadWrapper(prog, args, stdout, stderr)
	}
	s := cl.NewSet(prog, "Generate runtime registration code for a device binary image", "[options] Wrap input from <file>")
	kind := s.String("kind", "value", "Wrap for offload kind:")
	kind.Enum = []cl.EnumValue{{Name: "openmp", Help: "Wrap OpenMP binaries"},
		{Name: "cuda", Help: "Wrap CUDA binaries"}, {Name: "hip", Help: "Wrap HIP binaries"}}
	kind.Required, s.MinPositional = true, 1
	out := s.String("o", "file", "Write output to <file>.")
	triple := s.String("triple", "string", "Target triple for the wrapper module")
	ver := s.DeclareLLVMHelp("llvm-offload-wrapper options")
	if err := s.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, s.WithRequired(err))
		return 1
	}
	if code, done := helpOrRequired(s, prog, "llvm-offload-wrapper", ver, stdout, stderr); done {
		return code
	}
	k, err := wrapper.ParseKind(kind.Value())
	if err != nil {
		fmt.Fprintf(stderr, "%s: for the --kind option: Cannot find option named '%s'!\n", prog, kind.Value())
		return 1
	}
	if !out.Given() {
		// What LLVM 22 says when it cannot open the (empty) output name.
		fmt.Fprintf(stderr, "%s: error: No such file or directory\n", prog)
		return 1
	}
	j := &wrapJob{opts: wrapper.Options{Kind: k, Triple: triple.Value(), ABI: wrapper.LLVM20, AnyImage: true},
		output: out.Value(), inputs: s.Positional}
	if j.opts.Triple == "" {
		j.opts.Triple = hostTriple()
	}
	j.emit = dropInForm(j.output, j.opts.Triple)
	return j.run(prog, stderr, llvmError)
}

// llvmError words an error as LLVM's tools do: "error: " and the message,
// without this package's prefix; an output that cannot be created is
// reported without its name, as LLVM 22 does.
func llvmError(err error) string {
	var oe *outputError
	if errors.As(err, &oe) {
		return "error: " + unwrapPath(oe.err)
	}
	return "error: " + strings.TrimPrefix(err.Error(), "wrapper: ")
}

// outputError is a failure to create the output file.
type outputError struct {
	path string
	err  error
}

func (e *outputError) Error() string { return fmt.Sprintf("'%s': %s", e.path, unwrapPath(e.err)) }

// dropInForm picks what a drop-in writes to path for the host triple:
// bitcode, as LLVM does under any name, except a finished ELF object for a
// name ending in .o or .obj when the host is one EmitObj targets. For
// other hosts (COFF, architectures without an object writer) a .o or .obj
// name gets LLVM's bitcode too, which their linkers take.
func dropInForm(path, triple string) string {
	if (strings.HasSuffix(path, ".o") || strings.HasSuffix(path, ".obj")) && wrapper.ObjectHost(triple) == nil {
		return "obj"
	}
	return "bc"
}

// clangWrapperOverview is clang-offload-wrapper 14's, word for word.
const clangWrapperOverview = `A tool to create a wrapper bitcode for offload target binaries. Takes offload
target binaries as input and produces bitcode file containing target binaries packaged
as data and initialization code which registers target binaries in offload runtime.`

// runClangOffloadWrapper is clang-offload-wrapper: LLVM 14's command line,
// plus the AMD variant's --offload-arch and --add-omp-offload-notes (shown
// by --help-hidden only, so --help prints LLVM 14's text).
func runClangOffloadWrapper(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, clangWrapperOverview, "[options] <input files>")
	s.LLVM14Help = true
	out := s.String("o", "filename", "Output filename")
	target := s.String("target", "triple", "Target triple for the output module")
	out.Required, target.Required, s.MinPositional = true, true, 1
	arch := s.List("offload-arch", "offload-arch-name", "Contains offload-arch of the following target binary.", false)
	notes := s.Bool("add-omp-offload-notes", "Add LLVMOMPOFFLOAD ELF notes to ELF device images.")
	saveTemps := s.Bool("save-temps", "Save temporary files (accepted; no temporary files are made).")
	for _, o := range []*cl.Option{arch, notes, saveTemps} {
		o.Hidden = true
	}
	ver := s.DeclareLLVMHelp("clang-offload-wrapper options")
	expanded, err := cl.ExpandResponseFiles(args)
	if err == nil {
		if err = s.Parse(expanded); err != nil {
			err = s.WithRequired(err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 1
	}
	if code, done := helpOrRequired(s, prog, "clang-offload-wrapper", ver, stdout, stderr); done {
		return code
	}
	archs, err := pairArchs(expanded, map[string]bool{"o": true, "target": true})
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", prog, err)
		return 1
	}
	j := &wrapJob{opts: wrapper.Options{Kind: wrapper.OpenMP, Triple: target.Value(), ABI: wrapper.Legacy, AnyImage: true, WholeImages: true},
		emit: dropInForm(out.Value(), target.Value()), output: out.Value(), inputs: s.Positional, archs: archs, notes: notes.On}
	return j.run(prog, stderr, llvm14Error)
}

// llvm14Error words an error as clang-offload-wrapper 14 does: as
// llvmError, but naming an output it cannot create.
func llvm14Error(err error) string {
	var oe *outputError
	if errors.As(err, &oe) {
		return "error: " + oe.Error()
	}
	return llvmError(err)
}

// pairArchs gives each input the --offload-arch that precedes it, as
// clang-offload-wrapper's command line means it. valued names the other
// options that take a separate value. It returns nil when no target ID is
// given at all.
func pairArchs(args []string, valued map[string]bool) ([]string, error) {
	var archs []string
	pending, seen := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for range args[i+1:] {
				archs = append(archs, pending)
				pending = ""
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			archs = append(archs, pending)
			pending = ""
			continue
		}
		name, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "offload-arch" {
			if valued[name] && !has {
				i++
			}
			continue
		}
		if !has {
			if i+1 >= len(args) {
				return nil, errors.New("for the --offload-arch option: requires a value!")
			}
			i++
			value = args[i]
		}
		if pending != "" {
			return nil, fmt.Errorf("--offload-arch=%s and --offload-arch=%s both precede one input", pending, value)
		}
		if value == "" {
			return nil, errors.New("--offload-arch needs a target ID")
		}
		pending, seen = value, true
	}
	if pending != "" {
		return nil, fmt.Errorf("--offload-arch=%s is not followed by an input image", pending)
	}
	if !seen {
		return nil, nil
	}
	for i, a := range archs {
		if a == "" {
			return nil, fmt.Errorf("input %d has no --offload-arch; give one before every input or none", i+1)
		}
	}
	return archs, nil
}

const wrapUsage = "offload wrap --kind=openmp|cuda|hip -o <out> [--emit=ll|bc|c|s|obj] [--entries=llvm20|legacy] [--llvm=<major>] [--triple=<t>] [--offload-arch=<id>] [--offload-binaries|--split-packages] <image>..."

func runWrap(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "Generate host code that embeds device images and registers them with the OpenMP, CUDA or HIP runtime.", "[options] <image>...")
	kind := s.String("kind", "openmp|cuda|hip", "Offload runtime to register with (required)")
	out := s.String("o", "file", "Output file (required; - is standard output)")
	emit := s.String("emit", "ll|bc|c|s|obj", "Output form (default: from the -o extension .ll, .bc, .c, .s, .o)")
	entries := s.String("entries", "llvm20|legacy", "Offload entry ABI of the host objects: LLVM >= 20 (default) or <= 19")
	triple := s.String("triple", "triple", "Host target triple (default "+hostTriple()+")")
	llvm := s.String("llvm", "major", "Oldest LLVM that reads the ll or bc output (default 14 with --entries=legacy: typed pointers; 20 otherwise)")
	s.List("offload-arch", "target-id", "Target ID of the next image (legacy OpenMP: __tgt_image_info)", false)
	notes := s.Bool("add-omp-offload-notes", "Add LLVMOMPOFFLOAD ELF notes to ELF images")
	producer := s.String("notes-producer-version", "version", "Producer version written in the notes (default "+wrapper.DefaultProducerVersion+")")
	inline := s.Bool("inline", "Write image bytes into C and assembly output instead of .incbin of the input paths")
	binaries := s.Bool("offload-binaries", "OpenMP: register every OffloadBinary of the inputs whole, one image each, in .llvm.offloading (clang-linker-wrapper of LLVM 15-19; their libomptarget reads each image's arch there)")
	split := s.Bool("split-packages", "OpenMP: register every OffloadBinary of the inputs as one image, the image inside it registered, each binary kept whole in .llvm.offloading (clang-linker-wrapper of LLVM 20 and later)")
	help := s.Bool("help", "Display available options")
	s.Alias("h", "help")
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "%s: %s\nusage: %s\n", prog, msg, wrapUsage)
		return 2
	}
	expanded, err := cl.ExpandResponseFiles(args)
	if err == nil {
		err = s.Parse(expanded)
	}
	if err != nil {
		return usage(err.Error())
	}
	if help.On {
		s.PrintHelp(stdout)
		return 0
	}
	if !kind.Given() || !out.Given() || len(s.Positional) == 0 {
		return usage("--kind, -o and at least one image are required")
	}
	k, err := wrapper.ParseKind(kind.Value())
	if err != nil {
		return usage(err.Error())
	}
	abi := wrapper.LLVM20
	if entries.Given() {
		if abi, err = wrapper.ParseEntryABI(entries.Value()); err != nil {
			return usage(err.Error())
		}
	}
	form := emit.Value()
	if !emit.Given() {
		form = formFromName(out.Value())
	}
	switch form {
	case "ll", "bc", "c", "s", "obj":
	case "":
		return usage("cannot tell the output form from " + out.Value() + "; give --emit")
	default:
		return usage("--emit must be ll, bc, c, s or obj")
	}
	reader := 0
	if llvm.Given() {
		if reader, err = strconv.Atoi(llvm.Value()); err != nil || reader <= 0 {
			return usage("--llvm must be an LLVM major version such as 14")
		}
	}
	archs, err := pairArchs(expanded, map[string]bool{"o": true, "kind": true, "emit": true, "entries": true, "triple": true, "llvm": true, "notes-producer-version": true})
	if err != nil {
		return usage(err.Error())
	}
	t := triple.Value()
	if t == "" {
		t = hostTriple()
	}
	j := &wrapJob{opts: wrapper.Options{Kind: k, Triple: t, ABI: abi, LLVM: reader, Packages: binaries.On, SplitPackages: split.On}, emit: form, output: out.Value(),
		inputs: s.Positional, archs: archs, notes: notes.On, inline: inline.On, version: producer.Value()}
	return j.run(prog, stderr, func(err error) string { return err.Error() })
}

func formFromName(path string) string {
	for _, ext := range []struct{ suffix, form string }{{".ll", "ll"}, {".bc", "bc"}, {".c", "c"}, {".s", "s"}, {".S", "s"}, {".o", "obj"}, {".obj", "obj"}} {
		if strings.HasSuffix(path, ext.suffix) {
			return ext.form
		}
	}
	return ""
}

// run opens the inputs, generates the output atomically and reports errors
// as "prog: <format(err)>".
func (j *wrapJob) run(prog string, stderr io.Writer, format func(error) string) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: %s\n", prog, format(err))
		return 1
	}
	imgs, closeAll, err := j.open(prog, stderr)
	defer closeAll()
	if err != nil {
		return fail(err)
	}
	f, err := atomicfile.Create(j.output)
	if err != nil {
		return fail(&outputError{j.output, err})
	}
	defer f.Abort()
	emit := map[string]func(io.Writer, []wrapper.Image, wrapper.Options) error{
		"ll": wrapper.EmitLL, "bc": wrapper.EmitBC, "c": wrapper.EmitC, "s": wrapper.EmitAsm, "obj": wrapper.EmitObj,
	}[j.emit]
	if err := emit(f, imgs, j.opts); err != nil {
		return fail(err)
	}
	if err := f.Commit(); err != nil {
		return fail(err)
	}
	return 0
}

// open opens every input ("-" is standard input, spooled to a temporary
// file) and adds notes when asked.
func (j *wrapJob) open(prog string, stderr io.Writer) ([]wrapper.Image, func(), error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var imgs []wrapper.Image
	for i, path := range j.inputs {
		var im wrapper.Image
		if path == "-" {
			src, err := packager.SpoolStdin(os.Stdin)
			if err != nil {
				return nil, closeAll, fmt.Errorf("'-': %v", err)
			}
			files = append(files, src.R.(*os.File))
			im = wrapper.Image{Data: src.R, Size: src.Size}
		} else {
			f, err := os.Open(path)
			if err != nil {
				return nil, closeAll, fmt.Errorf("'%s': %v", path, unwrapPath(err))
			}
			files = append(files, f)
			st, err := f.Stat()
			if err != nil {
				return nil, closeAll, fmt.Errorf("'%s': %v", path, unwrapPath(err))
			}
			if st.IsDir() {
				return nil, closeAll, fmt.Errorf("'%s': Is a directory", path)
			}
			im = wrapper.Image{Data: f, Size: st.Size(), Path: path}
			if j.inline {
				im.Path = ""
			}
		}
		if j.archs != nil {
			im.Arch = j.archs[i]
		}
		if j.notes && path != "-" {
			noted, err := wrapper.AddOpenMPNotes(im, j.version)
			switch {
			case errors.Is(err, wrapper.ErrNotELF):
				fmt.Fprintf(stderr, "%s: warning: %s is not an ELF image, so notes cannot be added to it.\n", prog, path)
			case err != nil:
				return nil, closeAll, fmt.Errorf("'%s': %v", path, err)
			default:
				im = noted
			}
		}
		imgs = append(imgs, im)
	}
	return imgs, closeAll, nil
}

// unwrapPath drops the *os.PathError decoration, leaving the system message
// in LLVM's capitalisation.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return msg
}

// helpOrRequired answers --help and --version (which LLVM's tools honour
// before checking anything else) and then refuses missing required
// options. done reports that the run ends here, with code its exit status.
// A set with a Category prints help in LLVM's layout.
func helpOrRequired(s *cl.Set, prog, tool string, ver *cl.Option, stdout, stderr io.Writer) (code int, done bool) {
	r, help := s.Requested()
	switch {
	case help && s.Category != "":
		s.PrintLLVMHelp(stdout, r)
		return 0, true
	case help:
		s.PrintHelp(stdout)
		return 0, true
	case ver.On:
		fmt.Fprintf(stdout, "rules_offload %s version %s (offload %s)\n", tool, llvmVersion, version)
		return 0, true
	}
	if err := s.CheckRequired(); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 1, true
	}
	return 0, false
}
