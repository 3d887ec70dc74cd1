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

// cuda13Options are the WriteOptions of fatbinary 13's options.
func cuda13Options(t *testing.T, opts []string) WriteOptions {
	opt := WriteOptions{Release: CUDA130}
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "--compress-all":
			opt.CompressAll = true
		case "--compress":
			opt.NoCompress = v == "false"
		case "--compress-mode":
			m, err := ParseCompressMode(v)
			if err != nil {
				t.Fatal(err)
			}
			opt.CompressMode = m
		case "-g":
			opt.Debug = true
		case "--cmdline":
			opt.PTXASOptions = v
		case "--ident":
			opt.Ident = v
		default:
			t.Fatalf("option %q not known to the test", o)
		}
	}
	return opt
}

// TestWriteCUDA13 writes each of the 12 fat binaries with Release CUDA130
// and the options fatbinary 13 was given; each must equal fatbinary's byte
// for byte, ZSTD frames included (libzstd's level 5, and its optimal
// parser for --compress-mode=size, as zstdexact writes them). Where one
// differs, the entries are compared to say where.
func TestWriteCUDA13(t *testing.T) {
	images := []Image{
		{Kind: KindELF, Arch: 80, Data: readCUDA13(t, "cubin/k1.sm_80.cubin"), Name: "k1.sm_80.cubin"},
		{Kind: KindELF, Arch: 90, Data: readCUDA13(t, "cubin/k1.sm_90.cubin"), Name: "k1.sm_90.cubin"},
		{Kind: KindPTX, Arch: 90, Data: readCUDA13(t, "ptx/k1.compute_90.ptx"), Name: "k1.compute_90.ptx"},
	}
	identical := 0
	for name, opts := range cuda13Commands(t) {
		want := readCUDA13(t, "fatbin/"+name)
		got, err := Write(images, cuda13Options(t, opts))
		if err != nil {
			t.Errorf("%s (%s): %v", name, opts, err)
			continue
		}
		if bytes.Equal(got, want) {
			identical++
			continue
		}
		t.Errorf("%s (%s): not byte for byte fatbinary's", name, opts)
		ge, _, err1 := Read(bytes.NewReader(got), 0, int64(len(got)))
		we, _, err2 := Read(bytes.NewReader(want), 0, int64(len(want)))
		if err1 != nil || err2 != nil || len(ge) != len(we) {
			t.Errorf("%s (%s): %d entries (%v), fatbinary's %d (%v)", name, opts, len(ge), err1, len(we), err2)
			continue
		}
		for i := range ge {
			g, w := ge[i], we[i]
			if g.Header != w.Header {
				t.Errorf("%s (%s) entry %d header:\n%x\nfatbinary's:\n%x", name, opts, i, g.Header, w.Header)
			}
			if !bytes.Equal(got[g.Offset:g.Offset+g.Size], want[w.Offset:w.Offset+w.Size]) {
				t.Errorf("%s (%s) entry %d (%s): payload differs from fatbinary's", name, opts, i, w.Compression)
			}
		}
	}
	t.Logf("%d of 12 byte for byte fatbinary's", identical)
	if identical != 12 {
		t.Errorf("%d of 12 byte for byte fatbinary's, want all", identical)
	}
}
