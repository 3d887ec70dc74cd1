package bundler

import (
	"testing"
	"time"
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
