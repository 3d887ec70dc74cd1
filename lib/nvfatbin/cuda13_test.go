package nvfatbin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fat binaries, cubins and PTX under testdata/cuda13 are what CUDA
// 13.0's own tools wrote (docs/provenance.md); fatbin/COMMANDS.txt has
// the fatbinary command line of each fat binary.

const cuda13 = "testdata/cuda13"

func readCUDA13(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cuda13, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cuda13Commands maps each fat binary to its fatbinary options, those
// between --create and the images.
func cuda13Commands(t *testing.T) map[string][]string {
	cmds := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(readCUDA13(t, "fatbin/COMMANDS.txt"))), "\n") {
		_, cmd, _ := strings.Cut(line, ": ")
		var out string
		var opts []string
		for _, f := range strings.Fields(cmd)[1:] {
			switch {
			case strings.HasPrefix(f, "--create="):
				out = strings.TrimPrefix(f, "--create=")
			case strings.HasPrefix(f, "--image3="), f == "-64":
			default:
				opts = append(opts, f)
			}
		}
		cmds[out] = opts
	}
	return cmds
}

// TestReadCUDA13 reads every entry of the 12 fat binaries: each holds the
// sm_80 and sm_90 cubins as ptxas wrote them and the compute_90 PTX as
// fatbinary stores it, whichever way (LZ4, ZSTD, as is) it was stored.
func TestReadCUDA13(t *testing.T) {
	want := [][]byte{
		readCUDA13(t, "cubin/k1.sm_80.cubin"),
		readCUDA13(t, "cubin/k1.sm_90.cubin"),
		bytes.TrimSuffix(MinifyPTX(readCUDA13(t, "ptx/k1.compute_90.ptx")), []byte{0}),
	}
	cmds := cuda13Commands(t)
	if len(cmds) != 12 {
		t.Fatalf("COMMANDS.txt names %d fat binaries, want 12", len(cmds))
	}
	seen := map[Compression]int{}
	for name, opts := range cmds {
		b := readCUDA13(t, "fatbin/"+name)
		entries, n, err := Read(bytes.NewReader(b), 0, int64(len(b)))
		if err != nil || n != int64(len(b)) || len(entries) != 3 {
			t.Errorf("%s (%s): %d entries, %d of %d bytes, %v", name, opts, len(entries), n, len(b), err)
			continue
		}
		for i, e := range entries {
			seen[e.Compression]++
			got, err := e.Image(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s (%s) entry %d (%s): %v", name, opts, i, e.Compression, err)
				continue
			}
			if !bytes.Equal(got, want[i]) {
				t.Errorf("%s (%s) entry %d (%s): %d bytes, not the %d of the image given", name, opts, i, e.Compression, len(got), len(want[i]))
			}
			if arch := []int{80, 90, 90}[i]; e.Arch != arch {
				t.Errorf("%s entry %d: sm_%d, want sm_%d", name, i, e.Arch, arch)
			}
		}
	}
	// The set covers all three ways of storing an entry.
	if seen[Stored] == 0 || seen[LZ4] == 0 || seen[Zstd] == 0 {
		t.Errorf("entries stored, LZ4, ZSTD: %v; want some of each", seen)
	}
	t.Log(fmt.Sprint(seen))
}
