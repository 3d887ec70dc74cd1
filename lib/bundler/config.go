// Package bundler implements the operations of clang-offload-bundler —
// bundle, unbundle, list and unbundle-archive — on top of the format
// packages (bundle, ccob, elfobj, ar, targetid). Its errors carry LLVM 22's
// wording so that drivers and scripts that match on them keep working; where
// LLVM crashes or corrupts data, it returns a clear error instead.
package bundler

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// Config is one bundler job, the equivalent of LLVM's OffloadBundlerConfig.
type Config struct {
	FileType string   // i ii cui hipi d ll bc s o a gch ast
	Targets  []string // bundle entry IDs as given on the command line
	Inputs   []string
	Outputs  []string

	BundleAlign         int64 // binary bundles only; LLVM's default is 1
	AllowMissingBundles bool
	CheckInputArchive   bool
	HIPOpenMPCompatible bool
	PrintCommands       bool // --###: print the llvm-objcopy commands LLVM would run

	Compress         bool
	CompressionLevel int // 0: the method's default (zstd 3, zlib 6)
	// CompressionLevelGiven records that the level came from
	// -compression-level or OFFLOAD_BUNDLER_COMPRESSION_LEVEL: -verbose then
	// reports it as given, as LLVM does, 0 (zstd's "default") included.
	CompressionLevelGiven bool
	CompressedVersion     uint16
	CompressionMethod     ccob.Method

	// MaxUncompressedSize bounds the bytes decompressed from the input, in
	// total over all its compressed records (archive members included); 0
	// means budget.DefaultLimit (4 GiB).
	MaxUncompressedSize uint64
	// SkipHashCheck trusts the truncated MD5 of compressed inputs, as LLVM
	// does; by default it is verified.
	SkipHashCheck bool

	Verbose bool
	Stdout  io.Writer // --list output
	Stderr  io.Writer // verbose and --### output
	TempDir string    // where decompressed inputs are spooled; "" = os.TempDir()
}

// NewConfig returns LLVM 22's defaults: align 1, CCOB version 3, zstd.
func NewConfig() *Config {
	return &Config{
		BundleAlign:       1,
		CompressedVersion: 3,
		CompressionMethod: ccob.MethodZstd,
		Stdout:            io.Discard,
		Stderr:            io.Discard,
	}
}

// ApplyEnv applies the environment variables LLVM's bundler reads, in the
// same way (OffloadBundlerConfig's constructor); getenv returns the value and
// whether the variable is set. Warnings for invalid values go to warn.
func (c *Config) ApplyEnv(getenv func(string) (string, bool), warn io.Writer) {
	if v, ok := getenv("OFFLOAD_BUNDLER_IGNORE_ENV_VAR"); ok && v == "1" {
		return
	}
	if v, ok := getenv("OFFLOAD_BUNDLER_VERBOSE"); ok {
		c.Verbose = v == "1"
	}
	if v, ok := getenv("OFFLOAD_BUNDLER_COMPRESS"); ok {
		c.Compress = v == "1"
	}
	if v, ok := getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL"); ok {
		// LLVM's getAsInteger(10) takes an optional '-', never a '+'.
		if n, err := strconv.Atoi(v); err == nil && !strings.HasPrefix(v, "+") {
			c.CompressionLevel, c.CompressionLevelGiven = n, true
		} else {
			fmt.Fprintf(warn, "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. Ignoring it.\n", v)
		}
	}
	if v, ok := getenv("COMPRESSED_BUNDLE_FORMAT_VERSION"); ok {
		n, err := strconv.ParseUint(v, 10, 16)
		switch {
		case err != nil:
			fmt.Fprintf(warn, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Using default version %d.\n", v, c.CompressedVersion)
		case n < 2 || n > 3:
			fmt.Fprintf(warn, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Valid values are 2 or 3. Using default version %d.\n", v, c.CompressedVersion)
		default:
			c.CompressedVersion = uint16(n)
		}
	}
}
