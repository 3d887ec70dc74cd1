package regcheck

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// The tests here run the check on hostile records, made here from the
// formats' layouts, under the caps every reader of untrusted input must
// keep (internal/capped: 256 MiB resident, 2 s): this test binary is run
// again as the command (TestCappedHelper), which does what `offload
// regcheck` does.

// TestCappedHelper is the command the capped tests run: it checks the
// record $REGCHECK_RECORD as `offload regcheck` does and exits 0 (PASSED)
// or 1.
func TestCappedHelper(t *testing.T) {
	path := os.Getenv("REGCHECK_RECORD")
	if path == "" {
		t.Skip("run by the capped tests")
	}
	os.Exit(checkFile(path, cappedOptions()))
}

// cappedOptions are the options the capped tests pass in the environment:
// $REGCHECK_MAX, a byte count, for MaxUncompressedSize.
func cappedOptions() Options {
	var opt Options
	if s := os.Getenv("REGCHECK_MAX"); s != "" {
		fmt.Sscan(s, &opt.MaxUncompressedSize)
	}
	return opt
}

// checkFile is `offload regcheck RECORD`'s work and output.
func checkFile(path string, opt Options) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	rec, err := Parse(f, st.Size())
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	rep, err := Check(rec, opt)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	rep.Write(os.Stdout)
	if !rep.OK() {
		fmt.Printf("FAILED: %d problem(s)\n", rep.Count())
		return 1
	}
	fmt.Println("PASSED")
	return 0
}

// runCapped checks record in a child under the caps (env adds to its
// environment); passing a cap fails the test.
func runCapped(t *testing.T, record []byte, env ...string) capped.Result {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "hostile.record")
	if err := os.WriteFile(path, record, 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(append(os.Environ(), "REGCHECK_RECORD="+path, "TMPDIR="+dir), env...)
	r, err := capped.Run(dir, env, capped.MaxRSS, capped.MaxTime, os.Args[0], "-test.run=^TestCappedHelper$")
	if err != nil {
		t.Fatal(err)
	}
	if r.Over != "" {
		t.Errorf("the check of a %d-byte record passed the %s cap: %v", len(record), r.Over, r)
	}
	t.Logf("%d-byte record: exit %d, %v, peak RSS %d MiB, %d bytes of output", len(record), r.Code, r.Wall.Round(1e6), r.PeakRSS>>20, r.Bytes)
	return r
}

// record writes a record of units: each a kind, its blobs and the lines
// that register names under it ("function NAME", "var NAME").
type unit struct {
	kind  string
	blobs [][]byte
	names []string
}

func record(units ...unit) []byte {
	var b bytes.Buffer
	b.WriteString(Magic + "\n")
	for h, u := range units {
		for _, blob := range u.blobs {
			fmt.Fprintf(&b, "fatbin %d %s 0x0 %d\n", h, u.kind, len(blob))
			b.Write(blob)
			b.WriteString("\n")
		}
		for _, n := range u.names {
			kind, name, _ := strings.Cut(n, " ")
			fmt.Fprintf(&b, "%s %d %s\n", kind, h, name)
		}
	}
	return withEnd(b.Bytes())
}

// withMachine sets the ELF machine of a fakeCubin: 224 (AMDGPU) makes its
// "name.kd" symbols kernels, 62 (x86-64) its __omp_offloading_ functions.
func withMachine(elf []byte, machine uint16) []byte {
	elf[18], elf[19] = byte(machine), byte(machine>>8)
	return elf
}

func names(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// Finding: entries that share bytes were each parsed again, each image
// kept its kernels, and every problem listed every image. A HIP bundle of
// 5,000 entries pointing at one code object of 300 kernels, 300 other
// names registered: every kernel unregistered and every name missing, in
// 5,000 images.
func TestSharedPayloadBounded(t *testing.T) {
	kernels := names("_Z6kernelILi%dEEvv", 300)
	obj := withMachine(fakeCubin(0, nil, prefixed("", suffixed(kernels, ".kd"))), 224)
	ids := names("hipv4-amdgcn-amd-amdhsa--gfx%d", 5000)
	off := hostile.BundleHeaderSize(ids)
	es := make([]hostile.BundleEntry, len(ids))
	for i, id := range ids {
		es[i] = hostile.BundleEntry{ID: id, Offset: off, Size: uint64(len(obj))}
	}
	bundle := hostile.Bundle(es, obj)
	registered := prefixed("function ", names("_Z6kernelILi%dEEvf", 300))
	// The same in an OffloadBinary: 5,000 entries, one x86-64 image.
	omp := withMachine(fakeCubin(0, names("__omp_offloading_fe00_1_k%d", 300), nil), 62)
	for _, c := range []struct {
		rec   []byte
		image string
	}{
		{record(unit{"hip", [][]byte{bundle}, registered}), "gfx0 code object, gfx1 code object"},
		{record(unit{"openmp", [][]byte{sharedOffloadBinary(5000, omp)}, registered}), "x86_64-pc-linux-gnu shared object, x86_64-pc-linux-gnu shared object"},
	} {
		r := runCapped(t, c.rec)
		if r.Code != 1 || !strings.Contains(r.Output, "FAILED: 600 problem(s)") {
			t.Errorf("want 600 problems, the check failed; got %v", r)
		}
		if r.Bytes > 256<<10 {
			t.Errorf("%d bytes of output (%d lines); want the report capped", r.Bytes, r.Lines)
		}
		for _, want := range []string{c.image, "and 4968 more", "error: ... and 500 more problems"} {
			if !strings.Contains(r.Output, want) {
				t.Errorf("the report does not say %q: %v", want, r)
			}
		}
	}
}

// sharedOffloadBinary is a version 2 OffloadBinary (LLVM's layout: header,
// entries, string entries, string table, image) of n OpenMP entries for
// x86-64 that all point at one image and one pair of strings.
func sharedOffloadBinary(n int, image []byte) []byte {
	const hdr, entry, strEntry = 32, 40, 24
	table := "\x00triple\x00x86_64-pc-linux-gnu\x00"
	strOff := hdr + n*entry
	tabOff := strOff + strEntry
	imgOff := (tabOff + len(table) + 7) &^ 7
	b := make([]byte, imgOff, imgOff+len(image)+8)
	le := func(at int, v int) { binary.LittleEndian.PutUint64(b[at:], uint64(v)) }
	copy(b, "\x10\xff\x10\xad\x02\x00\x00\x00")
	le(16, hdr)
	le(24, n)
	for i := range n {
		e := hdr + i*entry
		b[e], b[e+2] = 1, 1 // IMG_Object, OFK_OpenMP
		le(e+8, strOff)
		le(e+16, 1)
		le(e+24, imgOff)
		le(e+32, len(image))
	}
	le(strOff, tabOff+1)
	le(strOff+8, tabOff+8)
	le(strOff+16, len("x86_64-pc-linux-gnu"))
	copy(b[tabOff:], table)
	b = append(b, image...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	le(8, len(b))
	return b
}

func suffixed(names []string, suffix string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + suffix
	}
	return out
}

// compressedOffloadBinary is a version 3 OffloadBinary (LLVM's layout:
// header, entry, two string entries, string table, image) whose zstd body
// inflates to an OpenMP x86-64 image: image followed by zeros zero bytes.
func compressedOffloadBinary(image []byte, zeros int64) []byte {
	const hdr, entry, strEntry = 40, 40, 24
	table := []byte("\x00triple\x00x86_64-pc-linux-gnu\x00arch\x00\x00")
	tabOff := int64(hdr + entry + 2*strEntry)
	dataOff := (tabOff + int64(len(table)) + 7) &^ 7
	size := int64(len(image)) + zeros
	meta := make([]byte, dataOff-hdr)
	le := func(b []byte, v uint64) {
		for i := range 8 {
			b[i] = byte(v >> (8 * i))
		}
	}
	meta[0], meta[2] = 1, 1 // IMG_Object, OFK_OpenMP
	le(meta[8:], hdr+entry)
	le(meta[16:], 2)
	le(meta[24:], uint64(dataOff))
	le(meta[32:], uint64(size))
	s := meta[entry:]
	le(s[0:], uint64(tabOff+1))
	le(s[8:], uint64(tabOff+8))
	le(s[16:], uint64(len("x86_64-pc-linux-gnu")))
	le(s[24:], uint64(tabOff+28))
	le(s[32:], uint64(tabOff+33))
	le(s[40:], 0)
	copy(meta[tabOff-hdr:], table)
	inflated := dataOff + size
	pad := (8 - inflated%8) % 8
	frame := hostile.ZstdFrame(append(meta, image...), zeros+pad)
	b := []byte{0x10, 0xFF, 0x10, 0xAD, 3, 0, 0, 0}
	b = append(b, make([]byte, 32)...)
	le(b[8:], uint64(hdr+len(frame)))
	le(b[16:], hdr)
	le(b[24:], 1)
	le(b[32:], uint64(inflated+pad))
	b = append(b, frame...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// ompImage is an x86-64 OpenMP device image with one kernel.
func ompImage(kernel string) []byte {
	return withMachine(fakeCubin(0, []string{kernel}, nil), 62)
}

// Finding: each compressed OffloadBinary was inflated into a buffer of its
// own, up to 1 GiB each, with no total: four of 1 GiB, in a record of 134
// KB, took 4.2 GB and passed. The record has one budget now, checked
// against what its images declare before any is inflated, and large
// images are inflated into temporary files.
func TestOffloadBinariesBudgeted(t *testing.T) {
	const k = "__omp_offloading_fe00_1_main_l1"
	ob := compressedOffloadBinary(ompImage(k), 1<<30-1<<20) // under the 1 GiB a binary may inflate to
	var units []unit
	for range 4 {
		units = append(units, unit{"openmp", [][]byte{ob}, []string{"function " + k}})
	}
	r := runCapped(t, record(units...), "REGCHECK_MAX=3221225472")
	if r.Code != 1 || !strings.Contains(r.Output, "decompressed data would exceed 3221225472 bytes") {
		t.Errorf("want the budget of 3 GiB refused; got %v", r)
	}
	// Within the budget, an image of 260 MiB is read from a temporary file.
	ob = compressedOffloadBinary(ompImage(k), 260<<20)
	r = runCapped(t, record(unit{"openmp", [][]byte{ob}, []string{"function " + k}}))
	if r.Code != 0 || !strings.Contains(r.Output, "openmp fat binary #0: x86_64-pc-linux-gnu; 1 kernels") {
		t.Errorf("want PASSED; got %v", r)
	}
}

// lz4PTX is one LZ4 block that inflates to head and then lines of width
// bytes ("//xxx...\n") up to at least size bytes, and its inflated size.
// Each line is a match of the line before it, no longer than its offset,
// which decoders copy at once rather than byte by byte.
func lz4PTX(head string, width, size int) ([]byte, int) {
	line := "//" + strings.Repeat("x", width-3) + "\n"
	lit := head + line
	b := append([]byte{0xF0}, appendLength(nil, len(lit)-15)...)
	b = append(b, lit...)
	n := len(lit)
	for first := true; n < size; first = false {
		if !first {
			b = append(b, 0x0F) // no literals, a match
		} else {
			b[0] |= 0x0F
		}
		b = append(b, byte(width), byte(width>>8))
		b = appendLength(b, width-4-15)
		n += width
	}
	b = append(b, 0x50) // the block ends with 5 literals
	return append(b, "\n\n\n\n\n"...), n + 5
}

// appendLength appends LZ4's length bytes for n past the token's 15.
func appendLength(b []byte, n int) []byte {
	for ; n >= 255; n -= 255 {
		b = append(b, 255)
	}
	return append(b, byte(n))
}

// Finding: compressed fat-binary entries (PTX, LZ4) were inflated into
// memory, up to 1 GiB each with no total. A 160 MiB entry is now inflated
// into a temporary file and read from there; entries that declare more
// than the budget together are refused before the first is inflated.
func TestFatbinEntriesBudgeted(t *testing.T) {
	ptx, size := lz4PTX(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry K(\n)\n{\n\tret;\n}\n", 60000, 160<<20)
	e := hostile.NVEntry{Kind: 1, Arch: 90, Header: 72, Payload: ptx, Inflated: size}
	fb := hostile.NVFatbin([]hostile.NVEntry{e})
	r := runCapped(t, record(unit{"cuda", [][]byte{fb}, []string{"function K"}}))
	if r.Code != 0 || !strings.Contains(r.Output, "cuda fat binary #0: compute_90; 1 kernels") {
		t.Errorf("want PASSED; got %v", r)
	}
	fb = hostile.NVFatbin([]hostile.NVEntry{e, e})
	r = runCapped(t, record(unit{"cuda", [][]byte{fb}, []string{"function K"}}), "REGCHECK_MAX=314572800")
	if r.Code != 1 || !strings.Contains(r.Output, fmt.Sprintf("decompressed data would exceed 314572800 bytes for this input (0 already inflated, %d more declared)", 2*size)) {
		t.Errorf("want the entries refused before inflating; got %v", r)
	}
}

// Finding: the diagnosis of each missing name matched regular expressions
// against every kernel of every image lacking it. CUB's kernels named
// after the host's __CUDA_ARCH_LIST__ (700_800_900) and the device
// compiles' (one architecture each), 2,000 per image in four images.
func TestDiagnosisIndexed(t *testing.T) {
	const kernel = "_ZN3cub%dCUB_101702_%s_NS6KernelILi%%dEEEvv"
	list := func(arch string) []string {
		return names(fmt.Sprintf(kernel, len("CUB_101702__NS")+len(arch), arch), 2000)
	}
	images := []nvfatbin.Image{
		{Kind: nvfatbin.KindELF, Arch: 70, Data: fakeCubin(70, list("700"), nil)},
		{Kind: nvfatbin.KindELF, Arch: 80, Data: fakeCubin(80, list("800"), nil)},
		{Kind: nvfatbin.KindELF, Arch: 90, Data: fakeCubin(90, list("900"), nil)},
		{Kind: nvfatbin.KindPTX, Arch: 90, Data: fakePTX(list("900"), nil)},
	}
	fb, err := nvfatbin.Write(images, nvfatbin.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := record(unit{"cuda", [][]byte{fb}, prefixed("function ", list("700_800_900"))})
	r := runCapped(t, rec)
	want := "CUB/Thrust kernel named after __CUDA_ARCH_LIST__ 700_800_900 in the host half, 700 in the sm_70 image, 800 in the sm_80 image, 900 in the sm_90 image, 900 in the compute_90 image"
	if r.Code != 1 || !strings.Contains(r.Output, want) || !strings.Contains(r.Output, "FAILED: 8000 problem(s)") {
		t.Errorf("want 8000 problems, the first diagnosed %q; got %v", want, r)
	}
}

// Finding: names were printed as they are: an escape sequence in a
// kernel's name cleared the screen and a newline forged a line of output.
func TestNamesEscaped(t *testing.T) {
	evil := "K\x1b[2J\nPASSED"
	obj := withMachine(fakeCubin(0, nil, []string{evil + ".kd"}), 224)
	id := "hipv4-amdgcn-amd-amdhsa--gfx906\x1b[31m"
	bundle := hostile.Bundle([]hostile.BundleEntry{{ID: id, Offset: hostile.BundleHeaderSize([]string{id}), Size: uint64(len(obj))}}, obj)
	rec := record(unit{"hip", [][]byte{bundle}, []string{"function R\x1b]0;title\x07\rPASSED", "var V\x1b[2J"}})
	for _, opt := range []Options{{}, {Host: map[string]bool{}}, {Targets: map[string][][]string{"hip": {{"gfx1\x1b[2J"}}}}} {
		var out bytes.Buffer
		check(t, rec, opt).Write(&out)
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }) || line == "PASSED" {
				t.Errorf("a line of the report is not escaped: %q", line)
			}
		}
		if !strings.Contains(out.String(), `"K\x1b[2J\nPASSED"`) {
			t.Errorf("the kernel's name is not shown quoted:\n%s", out.String())
		}
	}
	// An image that does not parse is named in the error.
	bad := hostile.Bundle([]hostile.BundleEntry{{ID: id, Offset: hostile.BundleHeaderSize([]string{id}), Size: 4}}, []byte("junk"))
	_, err := Check(mustParse(t, record(unit{"hip", [][]byte{bad}, nil})), Options{})
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("err = %q, want the entry's ID escaped", err)
	}
	// So is a kind the record should not have.
	_, err = Check(mustParse(t, record(unit{"\x1b[2J", [][]byte{bad}, nil})), Options{})
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("err = %q, want the kind escaped", err)
	}
}
