package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundler"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:    "bundler",
		aliases: []string{"clang-offload-bundler"},
		short:   "bundle and unbundle offload code (a drop-in clang-offload-bundler)",
		run:     runBundler,
	})
}

// LLVM's overview, whose first three lines end in a space.
const bundlerOverview = "A tool to bundle several input files of the specified type <type> \n" +
	"referring to the same source file but different targets into a single \n" +
	"one. The resulting file can also be unbundled into different files by \n" +
	"this tool if -unbundle is provided."

// bundlerTypeHelp is --type's description: the file types, one a line.
const bundlerTypeHelp = "Type of the files to be bundled/unbundled.\n" +
	"Current supported types are:\n" +
	"  i    - cpp-output\n" +
	"  ii   - c++-cpp-output\n" +
	"  cui  - cuda-cpp-output\n" +
	"  hipi - hip-cpp-output\n" +
	"  d    - dependency\n" +
	"  ll   - llvm\n" +
	"  bc   - llvm-bc\n" +
	"  s    - assembler\n" +
	"  o    - object\n" +
	"  a    - archive of objects\n" +
	"  gch  - precompiled-header\n" +
	"  ast  - clang AST file"

type bundlerFlags struct {
	set                                                      *cl.Set
	fileType, targets, input, inputs, output, outputs        *cl.Option
	unbundle, list, printCmds, allowMissing, align, checkArc *cl.Option
	hipOpenMP, compress, level, verbose, version             *cl.Option
	method, maxSize, skipHash                                *cl.Option
}

func newBundlerFlags(prog string) *bundlerFlags {
	s := cl.NewSet(prog, bundlerOverview, "[options]")
	f := &bundlerFlags{set: s}
	f.fileType = s.String("type", "string", bundlerTypeHelp)
	f.fileType.Required = true
	f.targets = s.List("targets", "string", "[<offload kind>-<target triple>,...]", true)
	f.input = s.List("input", "string", "Input file. Can be specified multiple times for multiple input files.", false)
	f.inputs = s.List("inputs", "string", "[<input file>,...] (deprecated)", true)
	f.output = s.List("output", "string", "Output file. Can be specified multiple times for multiple output files.", false)
	f.outputs = s.List("outputs", "string", "[<output file>,...] (deprecated)", true)
	f.unbundle = s.Bool("unbundle", "Unbundle bundled file into several output files.")
	f.list = s.Bool("list", "List bundle IDs in the bundled file.")
	// Ours prints the llvm-objcopy commands LLVM would run; the work is done in-process.
	f.printCmds = s.Bool("###", "Print any external commands that are to be executed instead of actually executing them - for testing purposes.")
	f.allowMissing = s.Bool("allow-missing-bundles", "Create empty files if bundles are missing when unbundling.")
	f.align = s.String("bundle-align", "uint", "Alignment of bundle for binary files")
	f.checkArc = s.Bool("check-input-archive", "Check if input heterogeneous archive is valid in terms of TargetID rules.")
	f.hipOpenMP = s.Bool("hip-openmp-compatible", "Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.")
	f.compress = s.Bool("compress", "Compress output file when bundling.")
	f.level = s.String("compression-level", "n", "Specify the compression level (integer)")
	f.verbose = s.Bool("verbose", "Print debug information.")
	f.version = s.DeclareLLVMHelp("clang-offload-bundler options")
	s.Alias("h", "help")
	// Ours, not LLVM's: hidden, so that --help prints LLVM's text; listed
	// by --help-hidden.
	f.method = s.String("compression", "zlib|zstd", "Compression method for -compress (default zstd; not in LLVM)")
	f.maxSize = s.String("max-uncompressed-size", "bytes", "Decompress at most this much from the input, over all its compressed records (default 4G; K, M, G suffixes; not in LLVM)")
	f.skipHash = s.Bool("skip-hash-check", "Do not verify the MD5 of compressed inputs, as LLVM does not (not in LLVM)")
	for _, o := range []*cl.Option{f.method, f.maxSize, f.skipHash} {
		o.Hidden = true
	}
	return f
}

func runBundler(prog string, args []string, stdout, stderr io.Writer) int {
	f := newBundlerFlags(prog)
	if err := f.set.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, f.set.WithRequired(err))
		return 1
	}
	if r, ok := f.set.Requested(); ok {
		f.set.PrintLLVMHelp(stdout, r)
		return 0
	}
	if f.version.On {
		fmt.Fprintf(stdout, "rules_offload clang-offload-bundler version %s (offload %s)\n", llvmVersion, version)
		return 0
	}
	if err := f.set.CheckRequired(); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 1
	}
	if len(f.set.Positional) > 0 {
		// LLVM's bundler declares no positional arguments, so cl reports the
		// first one as unknown.
		fmt.Fprintf(stderr, "%s: Unknown command line argument '%s'.  Try: '%s --help'\n", prog, f.set.Positional[0], prog)
		return 1
	}
	cfg, err := f.config(stderr)
	var optErr *cl.Error
	if errors.As(err, &optErr) {
		// LLVM reports option values without "error:".
		fmt.Fprintf(stderr, "%s: %s\n", prog, optErr)
		return 1
	}
	if err == nil {
		err = f.validate(cfg)
	}
	if err == nil {
		err = f.work(cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", prog, err)
		return 1
	}
	return 0
}

// config builds the job: environment first, then explicit flags, as LLVM.
func (f *bundlerFlags) config(stderr io.Writer) (*bundler.Config, error) {
	cfg := bundler.NewConfig()
	cfg.Stdout, cfg.Stderr = os.Stdout, stderr
	cfg.ApplyEnv(os.LookupEnv, stderr)
	cfg.FileType = f.fileType.Value()
	cfg.AllowMissingBundles = f.allowMissing.On
	cfg.CheckInputArchive = f.checkArc.On
	cfg.HIPOpenMPCompatible = f.hipOpenMP.On
	cfg.PrintCommands = f.printCmds.On
	cfg.SkipHashCheck = f.skipHash.On
	if f.compress.Given() {
		cfg.Compress = f.compress.On
	}
	if f.verbose.Given() {
		cfg.Verbose = f.verbose.On
	}
	if f.align.Given() {
		n, err := llvmUint(f.align.Value(), 32)
		if err != nil {
			return nil, &cl.Error{Msg: fmt.Sprintf("for the --bundle-align option: '%s' value invalid for uint argument!", f.align.Value())}
		}
		cfg.BundleAlign = int64(n)
	}
	if f.level.Given() {
		n, err := llvmInt(f.level.Value())
		if err != nil {
			return nil, &cl.Error{Msg: fmt.Sprintf("for the --compression-level option: '%s' value invalid for integer argument!", f.level.Value())}
		}
		cfg.CompressionLevel, cfg.CompressionLevelGiven = n, true
	}
	if f.method.Given() {
		switch f.method.Value() {
		case "zstd":
			cfg.CompressionMethod = ccob.MethodZstd
		case "zlib":
			cfg.CompressionMethod = ccob.MethodZlib
		default:
			return nil, &cl.Error{Msg: fmt.Sprintf("for the --compression option: '%s' is not zlib or zstd", f.method.Value())}
		}
	}
	if f.maxSize.Given() {
		n, err := parsePositiveBytes("--max-uncompressed-size", f.maxSize.Value())
		if err != nil {
			return nil, &cl.Error{Msg: err.Error()}
		}
		cfg.MaxUncompressedSize = n
	}
	return cfg, nil
}

// llvmUint parses a number as LLVM's cl does (StringRef::getAsInteger with
// radix 0): 0x, 0b, 0o and a leading 0 select the base; unlike Go's base 0,
// no underscores and no sign.
func llvmUint(s string, bits int) (uint64, error) {
	base := 10
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "0x"):
		s, base = s[2:], 16
	case strings.HasPrefix(lower, "0b"):
		s, base = s[2:], 2
	case strings.HasPrefix(s, "0o"):
		s, base = s[2:], 8
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		s, base = s[1:], 8
	}
	if s == "" || s[0] == '+' || s[0] == '-' || strings.Contains(s, "_") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(s, base, bits)
}

// llvmInt is llvmUint for an int option: an optional leading '-'.
func llvmInt(s string) (int, error) {
	neg := strings.HasPrefix(s, "-")
	n, err := llvmUint(strings.TrimPrefix(s, "-"), 31)
	if err != nil {
		return 0, err
	}
	if neg {
		return -int(n), nil
	}
	return int(n), nil
}

// validate applies clang-offload-bundler's command-line checks in its order.
func (f *bundlerFlags) validate(cfg *bundler.Config) error {
	if f.input.Given() && f.inputs.Given() {
		return fmt.Errorf("-inputs and -input cannot be used together, use only -input instead")
	}
	if f.output.Given() && f.outputs.Given() {
		return fmt.Errorf("-outputs and -output cannot be used together, use only -output instead")
	}
	warn := cfg.Stderr
	cfg.Inputs = append(append([]string(nil), f.input.Values...), f.inputs.Values...)
	if f.inputs.Given() {
		fmt.Fprintf(warn, "%s: warning: -inputs is deprecated, use -input instead\n", f.set.Prog)
	}
	cfg.Outputs = append(append([]string(nil), f.output.Values...), f.outputs.Values...)
	if f.outputs.Given() {
		fmt.Fprintf(warn, "%s: warning: -outputs is deprecated, use -output instead\n", f.set.Prog)
	}
	cfg.Targets = f.targets.Values
	if f.list.On {
		switch {
		case f.unbundle.On:
			return fmt.Errorf("-unbundle and -list cannot be used together")
		case len(cfg.Inputs) != 1:
			return fmt.Errorf("only one input file supported for -list")
		case len(cfg.Outputs) > 0:
			return fmt.Errorf("-outputs option is invalid for -list")
		case len(cfg.Targets) > 0:
			return fmt.Errorf("-targets option is invalid for -list")
		}
		return nil
	}
	if cfg.CheckInputArchive {
		if !f.unbundle.On {
			return fmt.Errorf("-check-input-archive cannot be used while bundling")
		}
		if cfg.FileType != "a" {
			return fmt.Errorf("-check-input-archive can only be used for unbundling archives (-type=a)")
		}
	}
	if len(cfg.Outputs) == 0 {
		return fmt.Errorf("no output file specified!")
	}
	if !f.targets.Given() {
		return fmt.Errorf("for the --targets option: must be specified at least once!")
	}
	return f.validateCounts(cfg)
}

func (f *bundlerFlags) validateCounts(cfg *bundler.Config) error {
	if f.unbundle.On {
		if len(cfg.Inputs) != 1 {
			return fmt.Errorf("only one input file supported in unbundling mode")
		}
		if len(cfg.Outputs) != len(cfg.Targets) {
			return fmt.Errorf("number of output files and targets should match in unbundling mode")
		}
		return nil
	}
	if cfg.FileType == "a" {
		return fmt.Errorf("Archive files are only supported for unbundling")
	}
	if len(cfg.Outputs) != 1 {
		return fmt.Errorf("only one output file supported in bundling mode")
	}
	if len(cfg.Inputs) != len(cfg.Targets) {
		return fmt.Errorf("number of input files and targets should match in bundling mode")
	}
	return nil
}

func (f *bundlerFlags) work(cfg *bundler.Config) error {
	switch {
	case f.list.On:
		return bundler.List(cfg)
	case f.unbundle.On:
		if cfg.FileType == "a" {
			collectLessOften()
		}
		return bundler.Unbundle(cfg)
	}
	return bundler.Bundle(cfg)
}

// collectLessOften suits a short run that allocates many small, short-lived
// objects and keeps little alive (unbundling a device archive parses every
// member): the garbage collector runs only when the heap nears 128 MiB
// instead of at every doubling, which saves a fifth of the run time while
// memory stays bounded.
func collectLessOften() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(128 << 20)
}
