package bundler

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

var streamIDs = []string{
	"host-x86_64-unknown-linux-gnu-",
	"hipv4-amdgcn-amd-amdhsa--gfx906",
	"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
	"hipv4-amdgcn-amd-amdhsa--gfx1100",
	"hipv4-nvptx64-nvidia-cuda--sm_70",
}

// writeCCOB compresses bundle into a file in dir.
func writeCCOB(t testing.TB, dir, name string, data []byte, method ccob.Method) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opt := ccob.DefaultWriterOptions()
	opt.Method = method
	if _, err := ccob.Compress(f, bytes.NewReader(data), int64(len(data)), opt); err != nil {
		t.Fatal(err)
	}
	return path
}

// randomBundle returns a binary bundle of some of streamIDs with random
// payloads, some empty, some larger than a decoder block.
func randomBundle(rng *rand.Rand) []byte {
	var ids []string
	var srcs []io.Reader
	var sizes []int64
	for _, id := range streamIDs {
		if rng.IntN(5) == 0 {
			continue
		}
		n := []int{0, 1, 100, 5000, 300 << 10}[rng.IntN(5)]
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(4)) // compressible, so blocks are small and many
		}
		ids, sizes, srcs = append(ids, id), append(sizes, int64(n)), append(srcs, bytes.NewReader(b))
	}
	var buf bytes.Buffer
	if err := bundle.WriteBinary(&buf, ids, sizes, srcs, []int64{1, 8, 4096}[rng.IntN(3)]); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// unbundleBoth unbundles in into fresh directories, once as usual (which
// streams where it can) and once through the general path (verbose forces
// it), and fails unless outputs and errors are the same. It returns the
// error of the first run.
func unbundleBoth(t *testing.T, in string, targets []string, allowMissing bool) error {
	t.Helper()
	run := func(verbose bool) (map[string]string, error) {
		dir := t.TempDir()
		cfg := NewConfig()
		cfg.FileType = "o"
		cfg.Targets = targets
		cfg.Inputs = []string{in}
		cfg.AllowMissingBundles = allowMissing
		cfg.Verbose = verbose
		cfg.TempDir = dir
		for i := range targets {
			cfg.Outputs = append(cfg.Outputs, filepath.Join(dir, fmt.Sprint("out", i)))
		}
		err := Unbundle(cfg)
		files := map[string]string{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			files[e.Name()] = string(b)
		}
		return files, err
	}
	got, gotErr := run(false)
	want, wantErr := run(true)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("streaming error %v, general path %v", gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("streaming left %d files, general path %d", len(got), len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Fatalf("%s differs: %d bytes streamed, %d by the general path", name, len(got[name]), len(w))
		}
	}
	return gotErr
}

// TestStreamMatchesGeneral unbundles random compressed bundles for random
// target lists both ways.
func TestStreamMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for i := range 40 {
		data := randomBundle(rng)
		method := []ccob.Method{ccob.MethodZstd, ccob.MethodZlib}[i%2]
		in := writeCCOB(t, dir, fmt.Sprint(i, ".ccob"), data, method)
		var targets []string
		for _, id := range streamIDs {
			if rng.IntN(3) > 0 {
				targets = append(targets, id)
			}
		}
		if len(targets) == 0 {
			targets = streamIDs[:1]
		}
		unbundleBoth(t, in, targets, rng.IntN(2) == 0)
	}
}

// TestStreamTakesPath checks which inputs stream and which fall back.
func TestStreamTakesPath(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	plain := randomBundle(rng)
	for len(plain) < 1000 {
		plain = randomBundle(rng)
	}
	ids := append([]string(nil), streamIDs...)
	payload := bytes.Repeat([]byte("payload!"), 40000)
	full := func(ids []string) []byte {
		var buf bytes.Buffer
		srcs := make([]io.Reader, len(ids))
		sizes := make([]int64, len(ids))
		for i := range ids {
			n := 1000 * (i%50 + 1)
			srcs[i], sizes[i] = bytes.NewReader(payload[:n]), int64(n)
		}
		if err := bundle.WriteBinary(&buf, ids, sizes, srcs, 1); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	whole := full(ids)
	// Two entries sharing one payload.
	overlap := bytes.Clone(whole)
	first := int64(len(bundle.Magic) + 8)
	second := first + 24 + int64(len(ids[0]))
	copy(overlap[second:second+16], overlap[first:first+16])
	// Many long IDs: a header bigger than what the decoder hands over at once.
	var long []string
	for i := range 3000 {
		long = append(long, fmt.Sprintf("openmp-x86_64-vendor%04d-linux-gnu", i))
	}
	cases := []struct {
		name    string
		data    []byte
		targets []string
		stream  bool
		errText string
	}{
		{"all targets", whole, ids, true, ""},
		{"some targets", whole, ids[1:3], true, ""},
		{"missing target", full(ids[:2]), ids[:3], false, "Can't find bundles for"},
		{"second bundle after the first", append(bytes.Clone(whole), whole...), ids, false, ""},
		{"overlapping payloads", overlap, ids[:2], false, ""},
		{"not a bundle", payload, ids[:1], false, "Can't find bundles for"},
		{"empty", nil, ids[:1], false, "Can't find bundles for"},
		{"long header", full(long), long[:3], true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := writeCCOB(t, dir, strings.ReplaceAll(c.name, " ", "-"), c.data, ccob.MethodZstd)
			err := unbundleBoth(t, in, c.targets, false)
			if c.errText == "" && err != nil || c.errText != "" && (err == nil || !strings.Contains(err.Error(), c.errText)) {
				t.Fatalf("error %v, want one containing %q", err, c.errText)
			}
			if got := streams(t, in, c.targets); got != c.stream {
				t.Fatalf("streamed: %v, want %v", got, c.stream)
			}
		})
	}
}

// streams reports whether the router finished the job itself.
func streams(t *testing.T, in string, ids []string) bool {
	t.Helper()
	cfg := NewConfig()
	cfg.FileType = "o"
	cfg.Targets = ids
	cfg.Inputs = []string{in}
	cfg.TempDir = t.TempDir()
	for i := range ids {
		cfg.Outputs = append(cfg.Outputs, filepath.Join(cfg.TempDir, fmt.Sprint(i)))
	}
	tg, err := checkTargets(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	var g atomicfile.Group
	defer g.Abort()
	var rt *router
	src, err := container.OpenInput(in, container.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	err = src.Decode(decompression(cfg, true), streamInto(cfg, handlerFor(cfg.FileType), tg, &g, &rt))
	if rt == nil {
		t.Fatal("input not streamable")
	}
	return err != nil || src.Streamed
}

// TestStreamHashMismatch checks a corrupt stored hash leaves no output.
func TestStreamHashMismatch(t *testing.T) {
	dir := t.TempDir()
	data := randomBundle(rand.New(rand.NewPCG(9, 9)))
	in := writeCCOB(t, dir, "bad.ccob", data, ccob.MethodZstd)
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ccob.ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[h.HeaderSize-8:], h.Hash^1) // the hash is the header's last field
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = unbundleBoth(t, in, streamIDs, true)
	if err == nil || !strings.Contains(err.Error(), "hash") {
		t.Fatalf("error %v, want a hash mismatch", err)
	}
}

// TestHashMismatchExplainsFirst asks for a target the corrupt input has no
// bundle for: the comparison, deferred while the general path matched
// the bundles, is what the job reports, as when it is not deferred.
func TestHashMismatchExplainsFirst(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	srcs := []io.Reader{strings.NewReader("host"), strings.NewReader("device code")}
	if err := bundle.WriteBinary(&buf, streamIDs[:2], []int64{4, 11}, srcs, 1); err != nil {
		t.Fatal(err)
	}
	in := writeCCOB(t, dir, "bad.ccob", buf.Bytes(), ccob.MethodZstd)
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ccob.ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[h.HeaderSize-8:], h.Hash^1)
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = unbundleBoth(t, in, streamIDs[:3], false)
	if err == nil || !strings.Contains(err.Error(), "hash mismatch") {
		t.Fatalf("error %v, want the hash mismatch", err)
	}
}

// FuzzRouter feeds arbitrary decompressed bytes to the router in chunks and
// checks that it never panics and that whatever it streams equals the
// payloads the general path reads from the whole bundle.
func FuzzRouter(f *testing.F) {
	for i := range 4 {
		var buf bytes.Buffer
		ids := streamIDs[i : i+2]
		srcs := []io.Reader{strings.NewReader("host"), strings.NewReader("device code")}
		if err := bundle.WriteBinary(&buf, ids, []int64{4, 11}, srcs, int64(1+i*3)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), uint16(i*7))
	}
	f.Add([]byte(bundle.Magic+"\xff\xff\xff\xff\xff\xff\xff\xff"), uint16(3))
	f.Fuzz(fuzzRouterBody)
}

func fuzzRouterBody(t *testing.T, data []byte, chunk uint16) {
	dir := t.TempDir()
	cfg := NewConfig()
	cfg.FileType = "o"
	cfg.Targets = streamIDs[:3]
	cfg.AllowMissingBundles = true
	for i := range cfg.Targets {
		cfg.Outputs = append(cfg.Outputs, filepath.Join(dir, fmt.Sprint(i)))
	}
	tg, err := checkTargets(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	spool, err := os.CreateTemp(dir, "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	var g atomicfile.Group
	defer g.Abort()
	r := &router{cfg: cfg, t: tg, spool: spool, group: &g, size: int64(len(data))}
	step := int(chunk%4096) + 1
	for rest := data; len(rest) > 0; {
		n := min(step, len(rest))
		if _, err := r.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if r.state != routeStream {
		return
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	es, err := bundle.ReadBinary(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("streamed a bundle the reader rejects: %v", err)
	}
	all := make([]entry, len(es))
	for i, e := range es {
		all[i] = entry{id: e.ID}
	}
	assign, err := match(all, tg, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range assign {
		got, err := os.ReadFile(cfg.Outputs[i])
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if a >= 0 {
			want = data[es[a].Offset : es[a].Offset+es[a].Size]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("output %d: %d bytes, want %d", i, len(got), len(want))
		}
	}
}
