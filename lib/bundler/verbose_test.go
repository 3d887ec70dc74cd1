package bundler

import (
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// LLVM prints hashes with format_hex(v, 16): the width counts "0x", so a
// hash whose top byte is zero has 14 digits, not 16.
func TestHashHex(t *testing.T) {
	for v, want := range map[uint64]string{
		0:                  "0x00000000000000",
		0x4e10eb035807b55a: "0x4e10eb035807b55a",
		0x00ab000000000001: "0xab000000000001",
	} {
		if got := hashHex(v); got != want {
			t.Errorf("hashHex(%#x) = %s, want %s", v, got, want)
		}
	}
}

func TestSpeed(t *testing.T) {
	if got := speed(3*1024*1024, 2*time.Second); got != "1.50 MB/s" {
		t.Errorf("speed = %s", got)
	}
	if got := speed(1, 0); got == "" {
		t.Error("speed of no time is empty")
	}
}

// -verbose prints the compression level as it was given, as LLVM does: a
// zstd level 0 (libzstd's default) is printed as 0, an unset one as the
// level used.
func TestReportedLevel(t *testing.T) {
	for _, c := range []struct {
		level int
		given bool
		m     ccob.Method
		want  int
	}{
		{0, false, ccob.MethodZstd, 3},
		{0, true, ccob.MethodZstd, 0},
		{9, true, ccob.MethodZstd, 9},
		{-5, true, ccob.MethodZstd, -5},
		{0, false, ccob.MethodZlib, 6},
		{0, true, ccob.MethodZlib, 6}, // ccob compresses a zlib 0 at 6
		{1, true, ccob.MethodZlib, 1},
	} {
		cfg := NewConfig()
		cfg.CompressionLevel, cfg.CompressionLevelGiven = c.level, c.given
		if got := reportedLevel(cfg, c.m); got != c.want {
			t.Errorf("level %d given %v %s: reported %d, want %d", c.level, c.given, c.m, got, c.want)
		}
	}
}
