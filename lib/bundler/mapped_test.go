package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/container"
)

// TestArchiveMappedOrNot unbundles the same device archive through the
// mapping and through the file: the outputs must be byte-identical.
// (tests/bundler compares the mapped path with LLVM.)
func TestArchiveMappedOrNot(t *testing.T) {
	if !mapInputs {
		t.Skip("inputs are not mapped on this system")
	}
	dir := t.TempDir()
	targets := []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx1100"}
	entries := []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx1100"}
	var members []ar.WriterMember
	for i := range 300 {
		ids := []string{entries[i%4], entries[(i+1)%4], "host-x86_64-unknown-linux-gnu-"}
		var sizes []int64
		var srcs []io.Reader
		for _, id := range ids {
			p := bytes.Repeat([]byte(fmt.Sprintf("member %d for %s;", i, id)), 1+i%40)
			sizes, srcs = append(sizes, int64(len(p))), append(srcs, bytes.NewReader(p))
		}
		var b bytes.Buffer
		if err := bundle.WriteBinary(&b, ids, sizes, srcs, 1+int64(i%2)*4095); err != nil {
			t.Fatal(err)
		}
		members = append(members, ar.WriterMember{Name: fmt.Sprintf("m%d.o", i), Size: int64(b.Len()), Data: bytes.NewReader(b.Bytes())})
	}
	var lib bytes.Buffer
	if err := ar.WriteArchive(&lib, members); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "lib.a")
	if err := os.WriteFile(in, lib.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	unbundle := func(suffix string) [][]byte {
		cfg := NewConfig()
		cfg.FileType, cfg.Targets, cfg.Inputs = "a", targets, []string{in}
		for i := range targets {
			cfg.Outputs = append(cfg.Outputs, filepath.Join(dir, fmt.Sprintf("out%d%s.a", i, suffix)))
		}
		if err := Unbundle(cfg); err != nil {
			t.Fatal(err)
		}
		var outs [][]byte
		for _, o := range cfg.Outputs {
			b, err := os.ReadFile(o)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, b)
		}
		return outs
	}
	withMap := unbundle("-mapped")
	mapInputs = false
	defer func() { mapInputs = true }()
	withoutMap := unbundle("-read")
	for i := range withMap {
		if !bytes.Equal(withMap[i], withoutMap[i]) || len(withMap[i]) < 10000 {
			t.Errorf("output %d: %d bytes mapped, %d read", i, len(withMap[i]), len(withoutMap[i]))
		}
	}
}

// TestFaultGuard truncates a mapped file and touches a page that is gone:
// the goroutine must get an error naming the file, not crash.
func TestFaultGuard(t *testing.T) {
	if !mapInputs {
		t.Skip("inputs are not mapped on this system")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "shrinks"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, 1<<16)); err != nil {
		t.Fatal(err)
	}
	in, err := container.OpenInput(f.Name(), container.InputOptions{Map: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	m, ok := in.R.(container.Mapped)
	if !ok {
		t.Fatal("could not map the file")
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	var got error
	var sink byte
	func() {
		defer faultGuard(&got, "shrinks")()
		sink += m[1<<15]
	}()
	if !errors.Is(got, container.ErrInputChanged) || !bytes.Contains([]byte(got.Error()), []byte("shrinks")) {
		t.Fatalf("touching a truncated mapping: %v (read %d)", got, sink)
	}
}

// FuzzUnbundleArchive runs hostile device archives through the whole
// archive path (mapping, shards, symbol listing, writers): errors are
// fine, panics are not, and a failed run leaves no output. Every run
// writes files, so minimizing a new input takes long: fuzz it with
// -fuzzminimizetime=2s (about 300 runs a second then).
func FuzzUnbundleArchive(f *testing.F) {
	f.Add(smallArchive(f, 3))
	f.Add(smallArchive(f, 1)[:200])
	f.Add([]byte("!<arch>\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "lib.a")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := NewConfig()
		cfg.FileType, cfg.Inputs = "a", []string{in}
		cfg.Targets = []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"}
		cfg.Outputs = []string{filepath.Join(dir, "o1.a"), filepath.Join(dir, "o2.a")}
		cfg.AllowMissingBundles = true
		if err := Unbundle(cfg); err != nil {
			for _, o := range cfg.Outputs {
				if _, serr := os.Stat(o); serr == nil {
					t.Fatalf("failed (%v) but left %s", err, o)
				}
			}
		}
	})
}

// smallArchive is a device archive of n binary-bundle members.
func smallArchive(tb testing.TB, n int) []byte {
	tb.Helper()
	var members []ar.WriterMember
	for i := range n {
		ids := []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"}
		var sizes []int64
		var srcs []io.Reader
		for _, id := range ids {
			p := []byte(fmt.Sprintf("member %d for %s", i, id))
			sizes, srcs = append(sizes, int64(len(p))), append(srcs, bytes.NewReader(p))
		}
		var b bytes.Buffer
		if err := bundle.WriteBinary(&b, ids, sizes, srcs, 1); err != nil {
			tb.Fatal(err)
		}
		members = append(members, ar.WriterMember{Name: fmt.Sprintf("m%d.o", i), Size: int64(b.Len()), Data: bytes.NewReader(b.Bytes())})
	}
	var lib bytes.Buffer
	if err := ar.WriteArchive(&lib, members); err != nil {
		tb.Fatal(err)
	}
	return lib.Bytes()
}
