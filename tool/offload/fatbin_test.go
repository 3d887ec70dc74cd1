package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Usage errors exit 2 with a message and write nothing; --help exits 0.
// (tests/fatbin compares the output with NVIDIA's fatbinary.)
func TestFatbinUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.fatbin")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-64"}, 2, "no output file: give --create=FILE"},
		{[]string{"-64", "--create", out, "k.cubin"}, 2, `unexpected argument "k.cubin"`},
		{[]string{"-64", "--create=" + out, "--compress=no"}, 2, "--compress=no: want true or false"},
		{[]string{"-64", "--create=" + out, "--image3=kind=elf,sm=sm_70,file=k.cubin"}, 2, "sm=sm_70: not an architecture number"},
		{[]string{"-64", "--create"}, 2, "requires a value"},
		{[]string{"-64", "--create=" + out, "--compress-mode=size"}, 2, "CUDA 11.8's fatbinary has no --compress-mode; give --cuda-version=13.0"},
		{[]string{"-64", "--create=" + out, "--cuda-version=12.4", "--compress-mode=size"}, 2, "CUDA 12.4's fatbinary has no --compress-mode"},
		{[]string{"-64", "--create=" + out, "--cuda-version=13.0", "--compress-mode=small"}, 2, "--compress-mode=small: want default, size, speed, balance or none"},
		{[]string{"-64", "--create=" + out, "--cuda-version=10.2"}, 2, "--cuda-version=10.2: CUDA version 10.2: the fat binaries of CUDA 11.8 and later"},
		{[]string{"-64", "--create=" + out, "--cuda-version=thirteen"}, 2, "want MAJOR.MINOR"},
		{[]string{"--help"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(append([]string{"offload", "fatbin"}, c.args...), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q wrote %s", c.args, out)
		}
	}
}

// With no image, the output is a container with no entries: the 16
// bytes fatbinary writes (tests/fatbin compares them).
func TestFatbinNoImages(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.fatbin")
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"fatbinary", "-64", "--create", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if want := "\x50\xed\x55\xba\x01\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00"; err != nil || string(b) != want {
		t.Fatalf("%q, %v", b, err)
	}
}

// --cuda, deprecated in fatbinary but still honoured there, sets the
// producer flag (0x4) in every entry and warns as fatbinary does: the
// entry header's flags without it are 0x11 (64-bit, PTX), with it 0x15
// (CUDA 11.8's and 12.4's fatbinary write these; tests/fatbin checks the
// whole file against fatbinary 11.8).
func TestFatbinCUDAFlag(t *testing.T) {
	dir := t.TempDir()
	ptx := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(ptx, []byte(".version 7.0\n.target sm_70\n.address_size 64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cuda  bool
		flags byte
		warn  string
	}{{false, 0x11, ""}, {true, 0x15, "offload fatbin: warning: option 'cuda' has been deprecated\n"}} {
		out := filepath.Join(dir, "out.fatbin")
		args := []string{"offload", "fatbin", "-64", "--create", out, "--image3=kind=ptx,sm=70,file=" + ptx}
		if c.cuda {
			args = append(args, "--cuda")
		}
		var stdout, stderr bytes.Buffer
		if code := dispatch(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil || len(b) < 64 {
			t.Fatalf("%s: %d bytes, %v", out, len(b), err)
		}
		// The entry header follows the 16-byte container header; its
		// flags are at +40.
		if got := b[16+40]; got != c.flags || stderr.String() != c.warn {
			t.Errorf("--cuda=%v: flags %#x, stderr %q; want %#x, %q", c.cuda, got, stderr.String(), c.flags, c.warn)
		}
	}
}
