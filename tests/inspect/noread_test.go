package inspect_test

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/inspect"
)

// inspect writes nothing: run in an empty directory with an empty TMPDIR
// on every fixture, both stay empty. The control shows the check sees
// writes: llvm-objdump-22 --offloading leaves files in the same setting.
func TestInspectWritesNothing(t *testing.T) {
	var paths []string
	for _, name := range listed {
		paths = append(paths, fixture(t, name))
	}
	cwd, tmp := t.TempDir(), t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	for _, args := range [][]string{{"inspect"}, {"inspect", "--json"}} {
		r := run(t, cwd, env, append(append([]string{offloadBin}, args...), paths...)...)
		if r.Code != 0 {
			t.Fatalf("%q failed:\n%v", args, r)
		}
	}
	if got := append(llvmtest.DirNames(t, cwd), llvmtest.DirNames(t, tmp)...); len(got) != 0 {
		t.Fatalf("inspect left files behind: %q", got)
	}

	objdump := llvmtest.Tool(t, "llvm-objdump-22")
	ctl := t.TempDir()
	llvmtest.WriteFile(t, ctl, "old.o", llvmtest.ReadFile(t, fixture(t, "old.o")))
	run(t, ctl, env, objdump, "--offloading", "old.o")
	if got := llvmtest.DirNames(t, ctl); len(got) <= 1 {
		t.Fatalf("control: llvm-objdump-22 --offloading wrote nothing either (%q), so the check above proves little", got)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.Add(int64(k))
	return k, err
}

const gib = 1 << 30

// sparseBundle is a 1 GiB binary bundle in which only the header is
// written: two 200 MiB entries and an empty host entry.
func sparseBundle(t *testing.T, dir string) string {
	le := binary.LittleEndian
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"}
	offs := []uint64{4096, 256 << 20, 768 << 20}
	sizes := []uint64{0, 200 << 20, 200 << 20}
	h := le.AppendUint64([]byte("__CLANG_OFFLOAD_BUNDLE__"), uint64(len(ids)))
	for i, id := range ids {
		h = le.AppendUint64(h, offs[i])
		h = le.AppendUint64(h, sizes[i])
		h = le.AppendUint64(h, uint64(len(id)))
		h = append(h, id...)
	}
	return sparse(t, dir, "bundle.bin", h, gib)
}

// sparseOffloadBinary is an OffloadBinary of total bytes (version 1, one
// entry, as laid out in docs/provenance.md#offload-binary) whose image, all but the first
// 4 KiB, is a hole.
func sparseOffloadBinary(t *testing.T, dir string, total uint64) string {
	le := binary.LittleEndian
	strs := "\x00arch\x00gfx90a\x00triple\x00amdgcn-amd-amdhsa\x00"
	const entryOff, entrySize, strEntries = 32, 40, 72
	strTab := uint64(strEntries + 2*16)
	b := le.AppendUint32(nil, 0xad10ff10)
	b = le.AppendUint32(b, 1)          // version
	b = le.AppendUint64(b, total)      // size of the binary
	b = le.AppendUint64(b, entryOff)   // entry offset
	b = le.AppendUint64(b, entrySize)  // entry size
	b = le.AppendUint16(b, 1)          // image kind: object
	b = le.AppendUint16(b, 4)          // offload kind: HIP
	b = le.AppendUint32(b, 0)          // flags
	b = le.AppendUint64(b, strEntries) // string entries
	b = le.AppendUint64(b, 2)          // number of strings
	b = le.AppendUint64(b, 4096)       // image offset
	b = le.AppendUint64(b, total-4096) // image size
	for _, kv := range [][2]string{{"arch", "gfx90a"}, {"triple", "amdgcn-amd-amdhsa"}} {
		b = le.AppendUint64(b, strTab+uint64(strings.Index(strs, "\x00"+kv[0]+"\x00")+1))
		b = le.AppendUint64(b, strTab+uint64(strings.Index(strs, "\x00"+kv[1]+"\x00")+1))
	}
	return sparse(t, dir, "package.bin", append(b, strs...), int64(total))
}

func sparse(t *testing.T, dir, name string, head []byte, size int64) string {
	p := llvmtest.WriteFile(t, dir, name, head)
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	return p
}

// Inspecting a 1 GiB container reads its headers and a few KiB at the
// start of each payload to recognise it, not the payloads.
func TestInspectReadsHeadersOnly(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path    string
		entries int
	}{{sparseBundle(t, dir), 3}, {sparseOffloadBinary(t, dir, gib), 1}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cr := &countingReader{r: f}
		n := inspect.Inspect(cr, gib, c.path, inspect.Options{})
		if n.Failed() || len(n.Children) != c.entries {
			t.Fatalf("%s: failed or wrong entries: %+v", c.path, n)
		}
		if got := cr.n.Load(); got > 256<<10 {
			t.Errorf("%s: inspect read %d bytes of a 1 GiB file", filepath.Base(c.path), got)
		}
		t.Logf("%s: %d bytes read", filepath.Base(c.path), cr.n.Load())

		r := mustRun(t, dir, nil, offloadBin, "inspect", c.path)
		if !strings.Contains(r.Stdout, "size 209715200") && !strings.Contains(r.Stdout, "size 1073737728") {
			t.Errorf("the CLI does not show the payload sizes:\n%s", r.Stdout)
		}
	}
	// The hand-made layout is valid for LLVM too (checked on a small one:
	// llvm-objdump-22 would read the whole 1 GiB).
	if llvmtest.Has("llvm-objdump-22") {
		small := sparseOffloadBinary(t, t.TempDir(), 8192)
		out := mustRun(t, dir, nil, "llvm-objdump-22", "--offloading", small).Stdout
		if !strings.Contains(out, "arch            gfx90a\ntriple          amdgcn-amd-amdhsa\nproducer        hip") {
			t.Errorf("llvm-objdump-22 does not read the hand-made package:\n%s", out)
		}
	}
}
