package inspect_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// The tests here run each command on a hostile input under the robustness
// caps (256 MiB resident, 2 s): it must finish, or refuse with a clear
// error, within them.

// runCapped runs the offload binary as argv[0] (a personality: a link to
// it) in dir, with TMPDIR in dir, under the caps; a command that passes
// one fails the test.
func runCapped(t *testing.T, dir string, argv ...string) capped.Result {
	t.Helper()
	prog := offloadBin
	if argv[0] != "offload" {
		prog = filepath.Join(dir, argv[0])
		os.Symlink(offloadBin, prog)
	}
	r, err := capped.Run(dir, append(os.Environ(), "TMPDIR="+dir), capped.MaxRSS, capped.MaxTime, prog, argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Over != "" {
		t.Errorf("%q passed the %s cap: %v", argv, r.Over, r)
	}
	return r
}

// Row 1: COFF objects whose section names all run to the end of a long
// string table, the review's 16.8 MB object of 200 such sections (3.3 GB
// RSS; our llvm-offload-binary > 120 s; llvm-offload-binary-22: 0.2 s,
// 58 MB) and its 65,534-section variant in a 20 KB zlib CCOB (asked ~768
// GiB).
func TestCOFFLongSectionNamesBounded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "long.obj"), hostile.COFFLongNames(200, 16<<20, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "long.ccob"), hostile.CCOBZlib(hostile.COFFLongNames(65534, 12<<20, 0)), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "inspect", "long.obj"}, 0, "coff (COFF object, x86-64)"},
		{[]string{"offload", "extract", "--list", "long.obj"}, 1, "no device image matches the selection in long.obj"},
		{[]string{"llvm-offload-binary", "long.obj"}, 0, ""},
		{[]string{"offload", "inspect", "long.ccob"}, 0, "coff (COFF object, x86-64)"},
		{[]string{"offload", "extract", "--list", "long.ccob"}, 1, "no device image matches the selection in long.ccob"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
}

// nvEntries returns n entries of a fat binary for sm_80: PTX with 1 MiB
// headers whose two strings span them (long), or PTX compressed as one
// LZ4 block of 4 bytes.
func nvEntries(n int, long bool) []hostile.NVEntry {
	es := make([]hostile.NVEntry, n)
	for i := range es {
		if long {
			es[i] = hostile.NVEntry{Kind: 1, Arch: 80, Header: 1 << 20, LongStrings: true, Payload: []byte("x\x00")}
		} else {
			es[i] = hostile.NVEntry{Kind: 1, Arch: 80, Header: 72, Payload: hostile.LZ4Literals([]byte("ptx\x00")), Inflated: 4}
		}
	}
	return es
}

// Row 5: a fat binary in a zlib CCOB (132 KB) whose 128 entries have 1
// MiB headers, each with an identifier and ptxas options of 1 MiB: the
// reader held every header and copied both strings (3x the 128 MiB
// inflated; the review's 1.07 MB input, 1,000 such entries, reached 3.13
// GB here, now 19 MB). Entries are now read one at a time, their strings
// slices of the header. And one of 500,000 LZ4-compressed entries of 80
// bytes (136 KB): inspect describes the first 10,000 and counts the rest.
func TestFatbinEntriesStreamed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "long.ccob"), hostile.CCOBZlib(hostile.NVFatbin(nvEntries(128, true))), 0o644)
	os.WriteFile(filepath.Join(dir, "many.ccob"), hostile.CCOBZlib(hostile.NVFatbin(nvEntries(500000, false))), 0o644)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"offload", "inspect", "long.ccob"}, "entry 127: ptx (sm_80, code version 8.0)"},
		{[]string{"offload", "extract", "--list", "long.ccob"}, "long.ccob: ccob@0: entry 127"},
		{[]string{"offload", "inspect", "many.ccob"}, "entries 10000 to 499999: data (490000 more entries, checked but not described one by one)"},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != 0 || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit 0 saying %q", c.argv, r, c.want)
		}
	}
}

// Row 7: a fat binary of 2,000 LZ4-compressed entries inside a CCOB.
// extract inflated them and inspect refused them as nested compression;
// one rule now (lib/budget, nesting.go): a fat binary's own compression
// is not a level of nesting, so both decode them, charged to the budget,
// while a CCOB in a CCOB stays refused (TestNestedCCOBRefused).
func TestFatbinLZ4InsideCCOBOneRule(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lz4.ccob"), hostile.CCOBZlib(hostile.NVFatbin(nvEntries(2000, false))), 0o644)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"offload", "inspect", "lz4.ccob"}, "entry 1999: ptx (sm_80, code version 8.0, compressed by NVIDIA with LZ4 (4 bytes inflated))"},
		{[]string{"offload", "extract", "--list", "lz4.ccob"}, "\t3\tlz4.ccob: ccob@0: entry 1999"},
		{[]string{"offload", "inspect", "--max-uncompressed-size=7000", "lz4.ccob"}, "decompressed data would exceed 7000 bytes"},
		{[]string{"offload", "extract", "--list", "--max-uncompressed-size=7000", "lz4.ccob"}, "decompressed data would exceed 7000 bytes"},
	} {
		r := runCapped(t, dir, c.argv...)
		code := 0
		if strings.Contains(c.want, "exceed") {
			code = 1
		}
		if r.Code != code || !strings.Contains(r.Output, c.want) || strings.Contains(r.Output, "inside compressed data") {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, code, c.want)
		}
	}
}

// Row 8: a valid compressed HIP fat binary of more than 16 MiB, made by
// clang-offload-bundler-22 -compress: inspect kept a 16 MiB prefix and
// called it damaged. Payloads over 16 MiB now inflate to an unlinked
// temporary file, within the budget.
func TestInspectLargeCompressedFatbin(t *testing.T) {
	bundler := llvmtest.NeedBundler(t)
	dir := t.TempDir()
	code := make([]byte, 17<<20) // incompressible, so the CCOB is > 16 MiB too
	rng := rand.New(rand.NewPCG(27, 8))
	for i := range code {
		code[i] = byte(rng.Uint32())
	}
	os.WriteFile(filepath.Join(dir, "dev.co"), code, 0o644)
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
	llvmtest.Run(t, dir, bundler, "-type=o", "-targets=host-x86_64-unknown-linux-gnu-,hipv4-amdgcn-amd-amdhsa--gfx906",
		"-input=empty", "-input=dev.co", "-output=big.hipfb", "-compress")
	r := runCapped(t, dir, "offload", "inspect", "big.hipfb")
	want := fmt.Sprintf("hipv4-amdgcn-amd-amdhsa--gfx906: data  size %d", len(code))
	if r.Code != 0 || !strings.Contains(r.Output, want) || !strings.Contains(r.Output, "ok\n") {
		t.Errorf("%v; want exit 0 listing %q", r, want)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "offload-*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// Row 6: compressed records declaring 4 GiB (128 KiB each, a bundle
// header then 4 GiB of zeros in the device entry): -list and extract
// --list decoded each whole into a temporary file (4 GiB, 7-8 s; LLVM
// inflates it in memory). They now decode a record only as far as what
// listing reads: the bundle header and the head of each entry.
func TestListCompressedReadsHeaders(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"}
	const device = 4<<30 - 1024
	rec := hostile.CCOB(hostile.BundleHeader(ids, []int64{0, device}), device)
	os.WriteFile(filepath.Join(dir, "big.bin"), rec, 0o644)
	// Two records side by side, zero padding between, as in .hip_fatbin.
	two := append(append(append([]byte(nil), rec...), make([]byte, 8)...), hostile.CCOBZlib(hostile.BundleHeader(ids[1:], []int64{0}))...)
	os.WriteFile(filepath.Join(dir, "two.bin"), two, 0o644)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=big.bin"}, ids[1] + "\n" + ids[0] + "\n"},
		{[]string{"offload", "extract", "--list", "big.bin"}, fmt.Sprintf("big-hipv4-amdgcn-amd-amdhsa-gfx906.bin\t%d\tbig.bin: ccob@0: %s\n", device, ids[1])},
		{[]string{"clang-offload-bundler", "-list", "-type=o", "-input=two.bin"}, ids[1] + "\n" + ids[0] + "\n" + ids[1] + "\n"},
		{[]string{"offload", "extract", "--list", "two.bin"}, fmt.Sprintf("two-hipv4-amdgcn-amd-amdhsa-gfx906.bin\t%d\ttwo.bin: ccob@0: %s\n", device, ids[1]) +
			fmt.Sprintf("two-hipv4-amdgcn-amd-amdhsa-gfx906.1.bin\t0\ttwo.bin: ccob@%d: %s\n", len(rec)+8, ids[1])},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != 0 || r.Output != c.want {
			t.Errorf("%q: %v; want exit 0 printing %q", c.argv, r, c.want)
		}
	}
}

// cubinHeader is the start of an ELF64 cubin for sm_arch, as fatbinary
// checks it: the class, and the architecture in e_flags' low byte.
func cubinHeader(arch byte) []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01")
	h[48] = arch
	return h
}

// Row 12: offload fatbin read each image whole (3x its size): /dev/zero
// ran out of memory (fatbinary stops with an error) and a 512 MiB cubin
// took 1.5 GB. Inputs that are not regular files are refused, and cubins
// stored as they are go from the input to the output. The cubin here is
// 256 MiB, over nvfatbin.MaxCompressed (so stored, streamed) and 768 MB
// before, but read in well under the 2 s cap on a loaded machine too
// (512 MiB: 0.13 s alone, over 2 s beside the rest of the suite).
func TestFatbinStreamsImages(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(cubinHeader(80))
	f.Truncate(256 << 20) // sparse: costs no disk
	f.Close()
	for _, c := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"offload", "fatbin", "-64", "--create=z.fatbin", "--image=profile=sm_80,file=/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{[]string{"offload", "fatbin", "-64", "--create=/dev/null", "--image=profile=sm_80,file=big.cubin"}, 0, ""},
	} {
		r := runCapped(t, dir, c.argv...)
		if r.Code != c.code || !strings.Contains(r.Output, c.want) {
			t.Errorf("%q: %v; want exit %d saying %q", c.argv, r, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "z.fatbin")); err == nil {
		t.Errorf("z.fatbin written")
	}
}
