package nvfatbin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/cuda124a holds what CUDA 12.4's fatbinary (Debian sid's
// nvidia-cuda-toolkit 12.4.131) wrote for architecture-specific targets:
// an sm_90a cubin and compute_90a PTX of its nvcc under five option sets,
// sm_90 beside sm_90a, nvcc's --image form, and CUDA 13's sm_90a and
// sm_100a cubins (COMMANDS.txt; docs/provenance.md). cuobjdump 12.4 names
// every entry sm_90a or sm_100a (cuobjdump-headers.txt).

// TestWriteCUDA124Accelerated writes each as CUDA 12.4: byte for byte
// fatbinary 12.4's.
func TestWriteCUDA124Accelerated(t *testing.T) {
	if n := writeCommands(t, "testdata/cuda124a", CUDA124); n != 8 {
		t.Errorf("%d command lines, want 8", n)
	}
}

// TestReadCUDA124Accelerated reads each fat binary's entries under the
// names cuobjdump 12.4 gives them ("arch = sm_90a").
func TestReadCUDA124Accelerated(t *testing.T) {
	dir := "testdata/cuda124a"
	listing, err := os.ReadFile(filepath.Join(dir, "cuobjdump-headers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	file := ""
	for _, line := range strings.Split(string(listing), "\n") {
		if f, ok := strings.CutPrefix(line, "== "); ok {
			file = f
		} else if arch, ok := strings.CutPrefix(line, "arch = "); ok {
			want[file] = append(want[file], arch)
		}
	}
	if len(want) != 8 {
		t.Fatalf("the listing names %d fat binaries, want 8", len(want))
	}
	for file, archs := range want {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		entries, err := ReadAll(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.ArchName())
			if e.Kind == KindPTX && e.ComputeName() != "compute_"+strings.TrimPrefix(e.ArchName(), "sm_") {
				t.Errorf("%s: PTX entry %s named %s", file, e.ArchName(), e.ComputeName())
			}
		}
		if strings.Join(got, " ") != strings.Join(archs, " ") {
			t.Errorf("%s: entries %q, cuobjdump lists %q", file, got, archs)
		}
	}
}

// CUDA 11.8's fatbinary has no "a" targets, and no SM before 90 has one:
// both are refused, naming the image and what to do.
func TestWriteAcceleratedRefused(t *testing.T) {
	cubin, err := os.ReadFile("testdata/cuda124a/k1.124.sm_90a.cubin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    Release
		arch int
		want string
	}{
		{CUDA118, 90, "k.cubin: sm_90a: CUDA 11.8's fatbinary has no architecture-specific targets (they came with CUDA 12.0); give --cuda-version=12.4 or later"},
		{CUDA124, 80, "k.cubin: sm_80a is not a target: SM 80 has no architecture-specific variant (those known: sm_90a, sm_100a, "},
		{CUDA130, 89, "sm_89a is not a target"},
	} {
		_, err := Write([]Image{{Kind: KindELF, Arch: c.arch, Accelerated: true, Data: cubin, Name: "k.cubin"}}, WriteOptions{Release: c.r})
		var ie *ImageError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, sm_%da: %v, want an ImageError with %q", c.r, c.arch, err, c.want)
		}
	}
	// CUDA 13's bytes: the 12.4 header model's flag (no oracle of 13 has
	// an "a" target: docs/nvfatbin.md).
	b, err := Write([]Image{{Kind: KindELF, Arch: 90, Accelerated: true, Data: cubin, Name: "k.cubin"}}, WriteOptions{Release: CUDA130})
	if err != nil {
		t.Fatal(err)
	}
	if f := binary.LittleEndian.Uint64(b[headerSize+40:]); f != FlagAccelerated|FlagLinux|Flag64Bit {
		t.Errorf("CUDA 13 sm_90a entry flags %#x", f)
	}
}

// A reader takes the flag on SM 90 and later (a newer CUDA may add "a"
// targets), and refuses it before: no such code exists.
func TestReadAcceleratedFlag(t *testing.T) {
	b, err := os.ReadFile("testdata/cuda124a/k1.a.3.fatbin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arch uint32
		want string // the first entry's name, or the error
	}{
		{90, "sm_90a"},
		{130, "sm_130a"},
		{89, "nvfatbin: flags 0x100011 mark sm_89 architecture-specific, which no SM before 90 is at offset 0x38"},
		{0, "flags 0x100011 mark sm_0 architecture-specific"},
	} {
		h := bytes.Clone(b)
		binary.LittleEndian.PutUint32(h[headerSize+28:], c.arch)
		entries, err := ReadAll(bytes.NewReader(h), int64(len(h)))
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrFormat) {
				t.Errorf("sm_%d: %v is not an ErrFormat", c.arch, err)
			}
		} else {
			got = entries[0].ArchName()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("sm_%d with the flag: %q, want %q", c.arch, got, c.want)
		}
	}
}
