package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/outbudget"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

// inflateFlags are the limits on decompression that every command reading
// untrusted containers takes.
type inflateFlags struct{ max, nested *cl.Option }

func addInflateFlags(s *cl.Set) *inflateFlags {
	return &inflateFlags{
		max: s.String("max-uncompressed-size", "bytes",
			"decompress at most this much from one input, over all its compressed records (default 4G; K, M, G suffixes)"),
		nested: s.Bool("allow-nested-compression", "decode compressed data found inside compressed data (refused by default)"),
	}
}

// limit returns the --max-uncompressed-size value, 0 if not given.
func (f *inflateFlags) limit() (uint64, error) {
	if !f.max.Given() {
		return 0, nil
	}
	return parsePositiveBytes("--max-uncompressed-size", f.max.Value())
}

// parsePositiveBytes is parseBytes for the limits, which refuse 0: inside
// the tool 0 stands for the default, so a 0 given on the command line
// would silently mean the largest limit instead of the smallest.
func parsePositiveBytes(flag, s string) (uint64, error) {
	n, err := parseBytes(flag, s)
	if err == nil && n == 0 {
		err = fmt.Errorf("for the %s option: '%s' is not a positive byte count", flag, s)
	}
	return n, err
}

// parseBytes reads a byte count: a number (0x and 0 prefixes select the
// base, as LLVM's options do) with an optional K, M or G suffix (powers of
// 1024).
func parseBytes(flag, s string) (uint64, error) {
	shift := 0
	switch strings.ToUpper(s[len(s)-min(len(s), 1):]) {
	case "K":
		shift = 10
	case "M":
		shift = 20
	case "G":
		shift = 30
	}
	num := s
	if shift > 0 {
		num = s[:len(s)-1]
	}
	n, err := strconv.ParseUint(num, 0, 64)
	if err != nil || n > ^uint64(0)>>shift || strings.Contains(num, "_") {
		return 0, fmt.Errorf("for the %s option: '%s' is not a byte count", flag, s)
	}
	return n << shift, nil
}

// outputFlags are the limits on what extract and convert write.
type outputFlags struct{ size, files *cl.Option }

func addOutputFlags(s *cl.Set) *outputFlags {
	return &outputFlags{
		size: s.String("max-output-size", "bytes",
			"write at most this many bytes of images (default: what the inputs hold, their size plus what was decompressed, plus 1M; K, M, G suffixes)"),
		files: s.String("max-output-files", "n", "write at most this many files or archive members (default 100000)"),
	}
}

// budget returns the output budget the flags give; held says what the
// inputs hold so far, for the default byte limit.
func (f *outputFlags) budget(held func() uint64) (*outbudget.Budget, error) {
	b := &outbudget.Budget{Held: held, Hint: "raise the limits with --max-output-size and --max-output-files"}
	var err error
	if f.size.Given() {
		b.MaxBytes, err = parsePositiveBytes("--max-output-size", f.size.Value())
	}
	if err == nil && f.files.Given() {
		b.MaxFiles, err = strconv.ParseUint(f.files.Value(), 10, 64)
		if err != nil || b.MaxFiles == 0 {
			err = fmt.Errorf("for the --max-output-files option: '%s' is not a positive number", f.files.Value())
		}
	}
	return b, err
}
