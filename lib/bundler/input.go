package bundler

import (
	"fmt"
	"time"

	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

// decompressInput is LLVM's prefix for errors decompressing an input.
const decompressInput = "Failed to decompress input"

// mapInputs can be turned off by tests, to cover the path without a
// mapping.
var mapInputs = container.CanMap

// inputOptions are how the job opens its inputs: spooling into its
// temporary directory, decoding within its limit.
func inputOptions(cfg *Config) container.InputOptions {
	return container.InputOptions{
		TempDir:   cfg.TempDir,
		Limit:     cfg.MaxUncompressedSize,
		LimitHint: "raise the limit with --max-uncompressed-size",
	}
}

// openInput opens the input called name as opt says (container.OpenInput:
// opening or spooling it, mapping it), its errors in LLVM's words.
func openInput(name string, opt container.InputOptions) (*container.Input, error) {
	in, err := container.OpenInput(name, opt)
	if err != nil {
		return nil, inputError(name, decompressInput, err)
	}
	return in, nil
}

// decompression is how the job decodes compressed records: against its
// limits, with LLVM's -verbose report of each. deferCheck leaves their
// MD5 comparisons running (see container.Input.Check).
func decompression(cfg *Config, deferCheck bool) container.DecodeOptions {
	opt := container.DecodeOptions{TempDir: cfg.TempDir, SkipHash: cfg.SkipHashCheck, DeferHash: deferCheck}
	if cfg.Verbose {
		opt.Decoded = func(r *container.CCOBRecord) {
			printDecompressed(cfg, r.Header, uint64(r.Used)-uint64(r.Header.HeaderSize), r.Took, cfg.SkipHashCheck)
		}
	}
	return opt
}

// expandMember decodes the compressed records of src, a member of the archive
// in (container.Input.Expand), its errors worded with prefix.
func expandMember(cfg *Config, in *container.Input, src *container.Source, prefix string) (*container.Input, error) {
	part, err := in.Expand(src, decompression(cfg, false))
	if err != nil {
		return nil, inputError(src.Name, prefix, err)
	}
	reportUncompressed(cfg, part)
	return part, nil
}

// reportUncompressed says, for -verbose, that in was not compressed, as
// LLVM's CompressedOffloadBundle::decompress does for every input (and
// archive member) without the CCOB magic, unless it is shorter than the
// magic, version and method.
func reportUncompressed(cfg *Config, in *container.Input) {
	if cfg.Verbose && !in.Compressed && in.Size >= 8 {
		fmt.Fprintf(cfg.Stderr, "Uncompressed bundle.\n")
	}
}

// printDecompressed writes -verbose's report of a decompression, LLVM's
// lines in LLVM's order. The hash was checked (a mismatch is an error here,
// where LLVM prints "Hashes match: No" and goes on), so the recalculated
// hash is the stored one; --skip-hash-check says that it was not checked.
func printDecompressed(cfg *Config, h ccob.Header, compressed uint64, took time.Duration, skipHash bool) {
	w := cfg.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	if h.Version >= 2 {
		fmt.Fprintf(w, "Total file size (from header): %s bytes\n", commas(h.TotalSize))
	}
	fmt.Fprintf(w, "Decompression method: %s\n", h.Method)
	fmt.Fprintf(w, "Size before decompression: %s bytes\n", commas(compressed))
	fmt.Fprintf(w, "Size after decompression: %s bytes\n", commas(h.UncompressedSize))
	if compressed > 0 && h.UncompressedSize > 0 {
		rate := float64(h.UncompressedSize) / float64(compressed)
		fmt.Fprintf(w, "Compression rate: %.2f\nCompression ratio: %.2f%%\n", rate, 100/rate)
	}
	fmt.Fprintf(w, "Decompression speed: %s\n", speed(h.UncompressedSize, took))
	fmt.Fprintf(w, "Stored hash: %s\n", hashHex(h.Hash))
	if skipHash {
		fmt.Fprintf(w, "Hashes match: not checked (--skip-hash-check)\n")
		return
	}
	fmt.Fprintf(w, "Recalculated hash: %s\nHashes match: Yes\n", hashHex(h.Hash))
}

// commas formats n with thousands separators, as LLVM's verbose output.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
