package bundler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// Bundle combines cfg.Inputs, one per target, into cfg.Outputs[0]. The
// container kind follows LLVM: text bundles for source-like types, ELF sections
// for -type=o with an object host input, binary bundles otherwise. Inputs
// are streamed; the output appears only if everything succeeded.
func Bundle(cfg *Config) error {
	t, err := checkTargets(cfg, false)
	if err != nil {
		return err
	}
	if cfg.BundleAlign < 1 {
		// LLVM 22 divides by zero here.
		return errorf("invalid bundle alignment %d: it must be at least 1", cfg.BundleAlign)
	}
	srcs := make([]*container.Input, len(cfg.Inputs))
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i, name := range cfg.Inputs {
		if srcs[i], err = openInput(name, inputOptions(cfg)); err != nil {
			return err
		}
	}
	h := handlerFor(cfg.FileType)
	kind, err := containerFor(h, srcs, t)
	if err != nil {
		return err
	}
	if err := notDir(cfg.Outputs[0]); err != nil {
		return err
	}
	out, err := atomicfile.Create(cfg.Outputs[0])
	if err != nil {
		return fileError(cfg.Outputs[0], err)
	}
	defer out.Abort()
	if err := writeContainer(out, kind, h, cfg, t, srcs); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return fileError(cfg.Outputs[0], err)
	}
	return nil
}

type containerKind int

const (
	binaryContainer containerKind = iota
	textContainer
	objectContainer
)

// containerFor picks the format as LLVM's CreateFileHandler does, looking at
// the host input (or the first input when there is no host).
func containerFor(h handler, srcs []*container.Input, t *targets) (containerKind, error) {
	switch {
	case h.kind == textHandler:
		return textContainer, nil
	case h.kind == binaryHandler:
		return binaryContainer, nil
	case h.fileType == "o":
		if t.host < 0 {
			// HIP-only: LLVM 22 segfaults when the first input is an object;
			// a fat binary of the code objects is what such a job means.
			return binaryContainer, nil
		}
		return objectOrBinary(srcs[t.host])
	}
	return 0, h.invalid()
}

// objectOrBinary returns objectContainer for ELF objects. Other object
// formats LLVM would edit (COFF, Mach-O) are refused rather than silently
// bundled in a different container than LLVM's.
func objectOrBinary(s *container.Input) (containerKind, error) {
	head := s.Prefix(8)
	switch {
	case elfobj.IsELF(head):
		return objectContainer, nil
	case isOtherObject(head):
		return 0, fileError(s.Name, errorf("only ELF objects can carry bundle sections; this object format is not supported"))
	}
	return binaryContainer, nil
}

func isOtherObject(b []byte) bool {
	machO := [][]byte{{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe}, {0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe}}
	for _, m := range machO {
		if bytes.HasPrefix(b, m) {
			return true
		}
	}
	// COFF objects start with a machine type; x86-64 and arm64 are the ones
	// offloading meets.
	return bytes.HasPrefix(b, []byte{0x64, 0x86}) || bytes.HasPrefix(b, []byte{0x64, 0xaa})
}

func writeContainer(out *atomicfile.File, kind containerKind, h handler, cfg *Config, t *targets, srcs []*container.Input) error {
	if kind == objectContainer {
		printObjcopyBundle(cfg, t)
		return writeObject(out, cfg, t, srcs)
	}
	size, write := plainBundle(kind, h, cfg, t, srcs)
	if !cfg.Compress {
		return write(out)
	}
	return compressTo(out, cfg, size, write)
}

// plainBundle returns the uncompressed bundle's size and a function that
// streams it.
func plainBundle(kind containerKind, h handler, cfg *Config, t *targets, srcs []*container.Input) (int64, func(io.Writer) error) {
	sizes := make([]int64, len(srcs))
	readers := func() []io.Reader {
		rs := make([]io.Reader, len(srcs))
		for i, s := range srcs {
			rs[i] = s.Reader()
		}
		return rs
	}
	for i, s := range srcs {
		sizes[i] = s.Size
	}
	if kind == textContainer {
		return textSize(h.comment, t.std, sizes), func(w io.Writer) error {
			return bundle.WriteText(w, h.comment, t.std, readers())
		}
	}
	_, total, _ := bundle.Layout(t.std, sizes, cfg.BundleAlign)
	return total, func(w io.Writer) error {
		return bundle.WriteBinary(w, t.std, sizes, readers(), cfg.BundleAlign)
	}
}

// textSize is the length of a text bundle: per entry a start marker line,
// the payload and an end marker line.
func textSize(comment string, ids []string, sizes []int64) int64 {
	var n int64
	for i, id := range ids {
		marker := int64(len("\n"+comment+" "+bundle.Magic+"__START__ ")) + int64(len(id)) + 1
		n += 2*marker - 2 + sizes[i] // START and END markers have the same length less 2
	}
	return n
}

// compressTo streams the bundle through the CCOB writer. The writer seeks
// back to fill in the header, so non-seekable outputs get a temporary file.
func compressTo(out *atomicfile.File, cfg *Config, size int64, write func(io.Writer) error) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	opt := ccob.WriterOptions{Version: cfg.CompressedVersion, Method: cfg.CompressionMethod, Level: cfg.CompressionLevel}
	var dst io.WriteSeeker = out.File
	var tmp *os.File
	if _, err := out.File.Seek(0, io.SeekCurrent); err != nil {
		if tmp, err = container.Unlinked(cfg.TempDir, "offload-ccob-*"); err != nil {
			return err
		}
		defer tmp.Close()
		dst = tmp
	}
	start := time.Now()
	h, err := ccob.Compress(dst, pr, size, opt)
	pr.CloseWithError(err)
	if err != nil {
		return err
	}
	if cfg.Verbose {
		printCompressed(cfg, h, time.Since(start))
	}
	if tmp != nil {
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		_, err = io.Copy(out, tmp)
		return err
	}
	return nil
}

// reportedLevel is the level -verbose prints. LLVM prints the level it was
// given; zstd takes 0 as its default level, so a given 0 compresses as the
// default does and is printed as 0. Unset, or 0 for zlib (where ccob reads 0
// as the default, not as zlib's "store"), it is the level used.
func reportedLevel(cfg *Config, m ccob.Method) int {
	if cfg.CompressionLevel != 0 || (cfg.CompressionLevelGiven && m == ccob.MethodZstd) {
		return cfg.CompressionLevel
	}
	return ccob.DefaultLevel(m)
}

// printCompressed writes -verbose's report of a compression, LLVM's lines
// in LLVM's order (the speed is a timing, so it differs run to run).
func printCompressed(cfg *Config, h ccob.Header, took time.Duration) {
	compressed := h.TotalSize - uint64(h.HeaderSize)
	fmt.Fprintf(cfg.Stderr, "Compressed bundle format version: %d\n", h.Version)
	fmt.Fprintf(cfg.Stderr, "Total file size (including headers): %s bytes\n", commas(h.TotalSize))
	fmt.Fprintf(cfg.Stderr, "Compression method used: %s\n", h.Method)
	fmt.Fprintf(cfg.Stderr, "Compression level: %d\n", reportedLevel(cfg, h.Method))
	fmt.Fprintf(cfg.Stderr, "Binary size before compression: %s bytes\n", commas(h.UncompressedSize))
	fmt.Fprintf(cfg.Stderr, "Binary size after compression: %s bytes\n", commas(compressed))
	if compressed > 0 {
		rate := float64(h.UncompressedSize) / float64(compressed)
		fmt.Fprintf(cfg.Stderr, "Compression rate: %.2f\nCompression ratio: %.2f%%\n", rate, 100/rate)
	}
	fmt.Fprintf(cfg.Stderr, "Compression speed: %s\n", speed(h.UncompressedSize, took))
	fmt.Fprintf(cfg.Stderr, "Truncated MD5 hash: %s\n", hashHex(h.Hash))
}

// writeObject adds one bundle section per target to the host object; the
// host's own section holds a single zero byte, as LLVM writes it.
func writeObject(out io.Writer, cfg *Config, t *targets, srcs []*container.Input) error {
	secs := make([]elfobj.NewSection, len(srcs))
	for i, s := range srcs {
		sec := elfobj.NewSection{
			Name:  bundle.Magic + t.std[i],
			Type:  uint32(elfSHTProgbits),
			Flags: elfSHFExclude,
			Align: 1,
			Size:  s.Size,
			Data:  s.Reader(),
		}
		if i == t.host {
			sec.Size, sec.Data = 1, bytes.NewReader([]byte{0})
		}
		secs[i] = sec
	}
	host := srcs[t.host]
	if err := elfobj.AddSections(out, host.R, host.Size, secs); err != nil {
		if oe := objcopyError(cfg, err); oe != nil {
			return oe
		}
		return fileError(host.Name, err)
	}
	return nil
}

const (
	elfSHTProgbits = 1
	elfSHFExclude  = 0x80000000
)

// printObjcopyBundle prints, for --###, the llvm-objcopy command LLVM would
// run; the work itself is done in-process either way.
func printObjcopyBundle(cfg *Config, t *targets) {
	if !cfg.PrintCommands {
		return
	}
	args := []string{"llvm-objcopy"}
	for i, id := range t.std {
		in := cfg.Inputs[i]
		if i == t.host {
			in = "<one zero byte>"
		}
		args = append(args, "--add-section="+bundle.Magic+id+"="+in,
			"--set-section-flags="+bundle.Magic+id+"=readonly,exclude")
	}
	args = append(args, "--", cfg.Inputs[t.host], cfg.Outputs[0])
	fmt.Fprintln(cfg.Stderr, quoteAll(args))
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = `"` + a + `"`
	}
	return strings.Join(q, " ")
}

// speed formats bytes per duration as LLVM's verbose output does: MiB/s
// with two decimals, under the name MB/s.
func speed(bytes uint64, took time.Duration) string {
	secs := took.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	return fmt.Sprintf("%.2f MB/s", float64(bytes)/(1024*1024)/secs)
}

// hashHex formats a truncated MD5 as LLVM's format_hex(v, 16): "0x" and at
// least 14 digits.
func hashHex(v uint64) string {
	return fmt.Sprintf("0x%014x", v)
}
