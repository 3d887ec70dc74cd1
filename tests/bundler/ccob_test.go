package bundler_test

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// compressible returns payloads that compress well (repeated text) or not.
func compressible(r *rand.Rand, text bool) []byte {
	if r.IntN(2) == 0 {
		return randPayload(r, text)
	}
	word := randPayload(r, true)
	if len(word) == 0 {
		word = []byte("kernel ")
	}
	return bytes.Repeat(word[:min(len(word), 40)], 1+r.IntN(200))
}

// TestCompressedCrossCheck bundles with --compress with both tools (CCOB
// v2 and v3; ours also with zlib and random levels): the header fields
// other than the compressed size must be LLVM's, each tool must read the
// other's output, and the entries must come back intact.
func TestCompressedCrossCheck(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	for i := 0; i < 40; i++ {
		seed := uint64(i)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			compressedCase(t, l, seed)
		})
	}
}

func compressedCase(t *testing.T, l tool, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0xcc0b))
	dir := t.TempDir()
	var ts []target
	for len(ts) == 0 || ambiguous(ts, ts, false) {
		ts = randTargets(r, 4)
	}
	text := r.IntN(3) == 0
	typ := pick(r, []string{"bc", "o", "gch"})
	if text {
		typ = pick(r, textTypes)
	}
	args := []string{"-type=" + typ, "-targets=" + raws(ts)}
	payloads := map[string][]byte{}
	for i, tg := range ts {
		data := compressible(r, text)
		payloads[tg.std] = data
		args = append(args, "-input="+llvmtest.WriteFile(t, dir, fileName(i), data))
	}
	if !text {
		args = append(args, fmt.Sprintf("-bundle-align=%d", pick(r, alignments)))
	}
	var env []string
	version := uint16(3)
	switch r.IntN(3) {
	case 0:
		env, version = []string{"COMPRESSED_BUNDLE_FORMAT_VERSION=2"}, 2
	case 1:
		env = []string{"COMPRESSED_BUNDLE_FORMAT_VERSION=3"}
	}
	if r.IntN(2) == 0 {
		args = append(args, "-compress")
	} else {
		env = append(env, "OFFLOAD_BUNDLER_COMPRESS=1")
	}
	oArgs := append([]string(nil), args...)
	method := uint16(1)
	if r.IntN(3) == 0 {
		oArgs, method = append(oArgs, "--compression=zlib"), 0
	}
	if r.IntN(2) == 0 {
		oArgs = append(oArgs, fmt.Sprintf("-compression-level=%d", pick(r, []int{0, 1, 3, 6, 9})))
	}
	t.Logf("env %q, bundle %q", env, oArgs)
	lr := run(t, dir, env, l, append(args, "-output=l.ccob")...)
	or := run(t, dir, env, ours(), append(oArgs, "-output=o.ccob")...)
	if lr.Code != 0 {
		sameError(t, "bundle", lr, or)
		return
	}
	if or.Code != 0 {
		t.Fatalf("LLVM bundled, ours failed: %v", or)
	}
	lb, ob := llvmtest.ReadFile(t, filepath.Join(dir, "l.ccob")), llvmtest.ReadFile(t, filepath.Join(dir, "o.ccob"))
	lh, err := parseCCOB(lb)
	if err != nil {
		t.Fatalf("LLVM's output: %v", err)
	}
	oh, err := parseCCOB(ob)
	if err != nil {
		t.Fatalf("our output: %v", err)
	}
	if lh.version != version || oh.version != version || oh.method != method || lh.method != 1 ||
		oh.size != lh.size || oh.hash != lh.hash || oh.total != uint64(len(ob)) || lh.total != uint64(len(lb)) {
		t.Errorf("headers differ: LLVM %+v, ours %+v (want version %d, method %d, total = file size)", lh, oh, version, method)
	}
	if method == 0 {
		checkZlibPayload(t, ob, oh)
	}
	listBoth(t, l, dir, typ, "o.ccob", stds(ts))
	// Each tool unbundles the other's file: every entry, by its ID.
	for _, c := range []struct {
		tl     tool
		in, at string
	}{{l, "o.ccob", "L"}, {ours(), "l.ccob", "O"}} {
		a := []string{"-unbundle", "-type=" + typ, "-targets=" + strings.Join(stds(ts), ","), "-input=" + c.in}
		for i := range ts {
			a = append(a, fmt.Sprintf("-output=%s%d", c.at, i))
		}
		res := run(t, dir, nil, c.tl, a...)
		if res.Code != 0 {
			t.Fatalf("%s unbundling %s: %v", c.tl.name, c.in, res)
		}
		for i, id := range stds(ts) {
			got := llvmtest.ReadFile(t, filepath.Join(dir, fmt.Sprintf("%s%d", c.at, i)))
			want := payloads[id]
			if isHostID(id) && typ == "o" {
				continue // non-object host input: the binary format; compared below
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s unbundling %s, %s: %s", c.tl.name, c.in, id, llvmtest.FirstDiff(want, got))
			}
		}
	}
}

func isHostID(id string) bool { return strings.HasPrefix(id, "host-") }

// checkZlibPayload inflates our zlib payload with Go's own zlib and checks
// its MD5 against the header.
func checkZlibPayload(t *testing.T, b []byte, h ccobFields) {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(b[h.headerSize:h.total]))
	if err != nil {
		t.Fatalf("zlib payload: %v", err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatalf("zlib payload: %v", err)
	}
	sum := md5.Sum(plain.Bytes())
	if uint64(plain.Len()) != h.size || !bytes.Equal(sum[:8], h.hash[:]) {
		t.Errorf("zlib payload inflates to %d bytes with MD5 %x; header says %d, %x", plain.Len(), sum[:8], h.size, h.hash)
	}
}

// ccobFixture is an uncompressed bundle by LLVM, and LLVM's zstd CCOB of it.
type ccobFixture struct {
	dir          string
	plain, zstd3 []byte
}

func newCCOBFixture(t *testing.T, l tool) ccobFixture {
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "h", []byte("HOSTDATA"))
	llvmtest.WriteFile(t, dir, "d", bytes.Repeat([]byte("DEVICE CODE "), 50))
	args := []string{"-type=bc", "-targets=" + hostT + "," + g906, "-input=h", "-input=d"}
	if r := run(t, dir, nil, l, append(args, "-output=plain.bc")...); r.Code != 0 {
		t.Fatal(r)
	}
	if r := run(t, dir, nil, l, append(args, "-compress", "-output=z3.bc")...); r.Code != 0 {
		t.Fatal(r)
	}
	return ccobFixture{dir, llvmtest.ReadFile(t, filepath.Join(dir, "plain.bc")), llvmtest.ReadFile(t, filepath.Join(dir, "z3.bc"))}
}

func zlibOf(b []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// TestCompressedVersions: v1, v2 and v3 headers around zlib and zstd
// payloads, written by hand from the layout (docs/provenance.md#ccob); both
// tools must read all.
func TestCompressedVersions(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	fx := newCCOBFixture(t, l)
	zstdPayload := fx.zstd3[32:]
	for _, v := range []uint16{1, 2, 3} {
		for _, m := range []uint16{0, 1} {
			payload := zstdPayload
			if m == 0 {
				payload = zlibOf(fx.plain)
			}
			name := fmt.Sprintf("v%d-m%d.bc", v, m)
			llvmtest.WriteFile(t, fx.dir, name, ccobFile(v, m, fx.plain, payload, -1))
			t.Run(name, func(t *testing.T) {
				lr, or := unbundleRaw(t, l, fx.dir, "bc", name, []string{g906, hostT})
				if lr.Code != 0 || or.Code != 0 {
					t.Errorf("LLVM %v\nours %v", lr, or)
				}
				listBoth(t, l, fx.dir, "bc", name, []string{g906, hostT + "-"})
			})
		}
	}
}

// TestCompressedStrictness: where LLVM 22 does not check (hash) or fails
// (padding, concatenation), ours checks or reads correctly; sizes beyond
// the limit are refused before anything is allocated.
func TestCompressedStrictness(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	fx := newCCOBFixture(t, l)
	dir := fx.dir
	good := fx.zstd3
	// A second CCOB holding other entries, to concatenate.
	llvmtest.WriteFile(t, dir, "d2", []byte("second bundle device"))
	if r := run(t, dir, nil, l, "-type=bc", "-targets=hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "-input=d2", "-compress", "-output=z3b.bc"); r.Code != 0 {
		t.Fatal(r)
	}
	second := llvmtest.ReadFile(t, filepath.Join(dir, "z3b.bc"))
	pad := func(b []byte, to int) []byte {
		return append(append([]byte(nil), b...), make([]byte, (to-len(b)%to)%to)...)
	}
	badHash := append([]byte(nil), good...)
	badHash[24] ^= 0xff
	huge := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(huge[16:], 5<<30) // declares 5 GiB
	shortTotal := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(shortTotal[8:], 40)
	longTotal := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(longTotal[8:], uint64(len(good)+100))
	files := map[string][]byte{
		"padded8.bc":    pad(good, 8),
		"padded4096.bc": pad(good, 4096),
		"concat.bc":     append(pad(good, 8), second...),
		"badhash.bc":    badHash,
		"huge.bc":       huge,
		"trailing.bc":   append(append([]byte(nil), good...), "GARBAGE!"...),
		"shorttotal.bc": shortTotal,
		"longtotal.bc":  longTotal,
	}
	for name, b := range files {
		llvmtest.WriteFile(t, dir, name, b)
	}
	unbundle := func(in string, extra ...string) llvmtest.Result {
		os.Remove(filepath.Join(dir, "x0"))
		os.Remove(filepath.Join(dir, "x1"))
		return run(t, dir, nil, ours(), append([]string{"-unbundle", "-type=bc", "-targets=" + g906 + "," + hostT,
			"-input=" + in, "-output=x0", "-output=x1"}, extra...)...)
	}
	want := bytes.Repeat([]byte("DEVICE CODE "), 50)
	for _, in := range []string{"padded8.bc", "padded4096.bc", "concat.bc"} {
		if r := unbundle(in); r.Code != 0 || !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, "x0")), want) {
			t.Errorf("%s: %v", in, r)
		}
	}
	r := run(t, dir, nil, ours(), "-type=bc", "-list", "-input=concat.bc")
	if got := sortedLines(r.Stdout); r.Code != 0 || strings.Join(got, ",") != g906+","+"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+,"+hostT+"-" {
		t.Errorf("list concat.bc: %v", r)
	}
	r = run(t, dir, nil, ours(), "-unbundle", "-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "-input=concat.bc", "-output=x2")
	if r.Code != 0 || string(llvmtest.ReadFile(t, filepath.Join(dir, "x2"))) != "second bundle device" {
		t.Errorf("unbundling the second CCOB: %v", r)
	}
	for _, c := range []struct{ in, words string }{
		{"badhash.bc", "hash"},
		{"huge.bc", "size"},
		{"trailing.bc", "data after"},
		{"shorttotal.bc", "decompress"}, // the payload ends where the total size says
		{"longtotal.bc", "size"},
	} {
		r := unbundle(c.in)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.in) || !strings.Contains(strings.ToLower(r.Stderr), c.words) {
			t.Errorf("%s: want exit 1 and an error naming the file and %q: %v", c.in, c.words, r)
		}
		if exists(filepath.Join(dir, "x0")) || exists(filepath.Join(dir, "x1")) {
			t.Errorf("%s: outputs left after the error", c.in)
		}
	}
	// --skip-hash-check trusts the hash, as LLVM does: the payload is intact,
	// only the stored hash is wrong.
	if r := unbundle("badhash.bc", "--skip-hash-check"); r.Code != 0 || !bytes.Equal(llvmtest.ReadFile(t, filepath.Join(dir, "x0")), want) {
		t.Errorf("badhash.bc --skip-hash-check: %v", r)
	}
	// The limit is settable.
	if r := unbundle("z3.bc", "--max-uncompressed-size=100"); r.Code != 1 || !strings.Contains(r.Stderr, "z3.bc") {
		t.Errorf("limit 100: %v", r)
	}
	if r := unbundle("z3.bc", fmt.Sprintf("--max-uncompressed-size=%d", len(fx.plain))); r.Code != 0 {
		t.Errorf("limit = size: %v", r)
	}
}

// TestEnvironment: the variables LLVM's bundler reads, alone and against
// the flags that override them.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	dir := cliDir(t)
	args := []string{"-type=bc", "-targets=" + hostT + "," + g906, "-input=h", "-input=d1"}
	cases := []struct {
		env   []string
		extra []string
	}{
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_IGNORE_ENV_VAR=0"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1"}, []string{"-compress=false"}},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=0"}, []string{"-compress"}},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=yes"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "COMPRESSED_BUNDLE_FORMAT_VERSION=2"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "COMPRESSED_BUNDLE_FORMAT_VERSION=7"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "COMPRESSED_BUNDLE_FORMAT_VERSION=x"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "COMPRESSED_BUNDLE_FORMAT_VERSION=+2"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "COMPRESSED_BUNDLE_FORMAT_VERSION=x", "OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=abc"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=0x3"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=+5"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=19"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_VERBOSE=1"}, nil},
		{[]string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_VERBOSE=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=9"}, nil},
		{nil, []string{"-compress", "-verbose", "-compression-level=19"}},
		{[]string{"OFFLOAD_BUNDLER_VERBOSE=1"}, []string{"-compress", "-verbose=false"}},
		{[]string{"OFFLOAD_BUNDLER_VERBOSE=0"}, []string{"-compress", "-verbose"}},
		{nil, []string{"-compress", "-verbose"}},
	}
	for i, c := range cases {
		lr := run(t, dir, c.env, l, append(append(args, c.extra...), "-output=l.bc")...)
		or := run(t, dir, c.env, ours(), append(append(args, c.extra...), "-output=o.bc")...)
		what := fmt.Sprintf("case %d %q %q", i, c.env, c.extra)
		if lr.Code != 0 || or.Code != 0 {
			t.Errorf("%s: LLVM %v\nours %v", what, lr, or)
			continue
		}
		lb, ob := llvmtest.ReadFile(t, filepath.Join(dir, "l.bc")), llvmtest.ReadFile(t, filepath.Join(dir, "o.bc"))
		lh, lerr := parseCCOB(lb)
		oh, oerr := parseCCOB(ob)
		switch {
		case (lerr == nil) != (oerr == nil):
			t.Errorf("%s: LLVM compressed: %v, ours: %v", what, lerr == nil, oerr == nil)
		case lerr != nil:
			sameBytes(t, what, lb, ob)
		case lh.version != oh.version || lh.method != oh.method || lh.size != oh.size || lh.hash != oh.hash:
			t.Errorf("%s: headers: LLVM %+v, ours %+v", what, lh, oh)
		}
		for _, line := range strings.Split(lr.Stderr, "\n") {
			if strings.HasPrefix(line, "Warning: ") && !strings.Contains(or.Stderr, line) {
				t.Errorf("%s: LLVM warns %q; ours printed %q", what, line, or.Stderr)
			}
		}
		sameVerbose(t, what, lr.Stderr, or.Stderr, "Compressed bundle format version:", "Compression method used:", "Compression level:",
			"Binary size before compression:", "Truncated MD5 hash:")
		// The other lines hold our compressor's sizes and timings: the
		// same lines, in the same order.
		if l, o := verboseLabels(lr.Stderr), verboseLabels(or.Stderr); l != o {
			t.Errorf("%s: verbose lines differ\nLLVM %s\nours %s", what, l, o)
		}
	}
	// Verbose unbundling of a compressed bundle.
	env := []string{"OFFLOAD_BUNDLER_VERBOSE=1"}
	lr := run(t, dir, env, l, "-unbundle", "-type=bc", "-targets="+g906, "-input=l.bc", "-output=x")
	or := run(t, dir, env, ours(), "-unbundle", "-type=bc", "-targets="+g906, "-input=l.bc", "-output=y")
	// Unbundling LLVM's file: every line the same but the speed.
	if l, o := maskSpeed(lr.Stderr), maskSpeed(or.Stderr); lr.Code != 0 || or.Code != 0 || l != o || !strings.Contains(l, "Hashes match: Yes") {
		t.Errorf("verbose unbundle: LLVM %d %q\nours %d %q", lr.Code, l, or.Code, o)
	}
}

// verboseLabels lists what comes before ": " on each line of a verbose
// output, one a line.
func verboseLabels(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if label, _, ok := strings.Cut(line, ": "); ok {
			out = append(out, label)
		}
	}
	return strings.Join(out, "\n")
}

// maskSpeed hides the timings of a verbose output.
func maskSpeed(s string) string {
	return regexp.MustCompile(`[0-9.]+ MB/s`).ReplaceAllString(s, "# MB/s")
}

// sameVerbose checks that the verbose lines with the given prefixes are
// the same in both outputs (the others hold timings).
func sameVerbose(t *testing.T, what, llvmErr, ourErr string, prefixes ...string) {
	t.Helper()
	pick := func(s string) []string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			for _, p := range prefixes {
				if strings.HasPrefix(line, p) {
					out = append(out, line)
				}
			}
		}
		return out
	}
	if l, o := pick(llvmErr), pick(ourErr); strings.Join(l, "\n") != strings.Join(o, "\n") {
		t.Errorf("%s: verbose output differs\nLLVM %q\nours %q", what, l, o)
	}
}
