package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/budget"
)

// hostileConfig is a job on the file holding in, with its decompression
// budget.
func hostileConfig(t *testing.T, fileType string, in []byte, limit uint64) *Config {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "in")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := NewConfig()
	cfg.FileType, cfg.Inputs, cfg.TempDir, cfg.MaxUncompressedSize = fileType, []string{path}, dir, limit
	cfg.Stdout = &bytes.Buffer{}
	return cfg
}

// Four 1 GiB CCOB records side by side (the review's 131 KiB input, 29.5 s
// of decoding) are refused before any is decoded when together they
// exceed the budget; the error names the input, the budget and the flag.
func TestConcatenatedRecordsRefusedBeforeDecoding(t *testing.T) {
	in := bytes.Repeat(hostile.CCOB(nil, 1<<30), 4)
	cfg := hostileConfig(t, "o", in, 3<<30)
	err := List(cfg)
	var ee *budget.ExceededError
	if !errors.As(err, &ee) || ee.Want != 4<<30 || ee.Used != 0 {
		t.Fatalf("got %v; want 4 GiB refused with nothing decoded", err)
	}
	for _, want := range []string{cfg.Inputs[0], "would exceed 3221225472 bytes", "--max-uncompressed-size"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// The members of an archive draw on the input's one budget: each member's
// 256 MiB record fits a budget of its own, the second does not fit what the
// first left.
func TestArchiveMembersShareBudget(t *testing.T) {
	rec := hostile.CCOB(nil, 256<<20)
	var lib bytes.Buffer
	err := ar.WriteArchive(&lib, []ar.WriterMember{
		{Name: "a.o", Size: int64(len(rec)), Data: bytes.NewReader(rec)},
		{Name: "b.o", Size: int64(len(rec)), Data: bytes.NewReader(rec)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := hostileConfig(t, "a", lib.Bytes(), 300<<20)
	cfg.Targets = []string{"hipv4-amdgcn-amd-amdhsa--gfx906"}
	cfg.Outputs = []string{filepath.Join(cfg.TempDir, "out.a")}
	cfg.AllowMissingBundles = true
	if err := Unbundle(cfg); !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("got %v, want the second member refused by the budget", err)
	}
}

// The records decoded from an archive's compressed members are closed when
// the job ends, not left open until the garbage collector finds them: a
// library of thousands of compressed members must not run out of file
// descriptors.
func TestArchiveMembersClosed(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	rec := hostile.CCOBZlib(make([]byte, 1024))
	var ms []ar.WriterMember
	for i := range 50 {
		ms = append(ms, ar.WriterMember{Name: fmt.Sprintf("m%d.o", i), Size: int64(len(rec)), Data: bytes.NewReader(rec)})
	}
	var lib bytes.Buffer
	if err := ar.WriteArchive(&lib, ms); err != nil {
		t.Fatal(err)
	}
	cfg := hostileConfig(t, "a", lib.Bytes(), 0)
	cfg.Targets = []string{"hipv4-amdgcn-amd-amdhsa--gfx906"}
	cfg.Outputs = []string{filepath.Join(cfg.TempDir, "out.a")}
	cfg.AllowMissingBundles = true
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no finalizer closes them meanwhile
	before := fds()
	if err := Unbundle(cfg); err != nil {
		t.Fatal(err)
	}
	if after := fds(); after > before+2 {
		t.Fatalf("%d file descriptors open after unbundling 50 compressed members, %d before", after, before)
	}
}

// The bundler reads one level of compression, as LLVM does: the inner
// records of a CCOB whose content is 16 CCOBs (the review's 265-byte
// input), and the CCOBs inside a text bundle → CCOB → text bundle … chain
// 200 levels deep, are never decoded, so neither nesting nor depth can
// make it inflate more than the outer record: each job's budget is
// exactly what the outer record holds (one byte for the chain, which
// holds no compressed record), and a byte more decoded would exceed it.
func TestNestingNotDecoded(t *testing.T) {
	inner := bytes.Repeat(hostile.CCOB(nil, 256<<20), 16)
	cfg := hostileConfig(t, "o", hostile.CCOBZlib(inner), uint64(len(inner)))
	if err := List(cfg); err != nil {
		t.Fatalf("listing the nested CCOB decoded more than the outer record's %d bytes: %v", len(inner), err)
	}

	chain := hostile.TextChain(100)
	cfg = hostileConfig(t, "hipi", chain, 1)
	hip := "hip-amdgcn-amd-amdhsa--gfx906"
	cfg.Targets = []string{hip}
	cfg.Outputs = []string{filepath.Join(cfg.TempDir, "out")}
	if err := Unbundle(cfg); err != nil {
		t.Fatalf("unbundling the chain decoded something: %v", err)
	}
	got, _ := os.ReadFile(cfg.Outputs[0])
	if !bytes.HasPrefix(got, []byte("CCOB")) {
		t.Errorf("unbundling the chain wrote %q...; want the inner CCOB written as stored", got[:min(len(got), 8)])
	}
}

// When an archive's compressed members outgrow the budget together, the
// member refused is the one a sequential walk refuses, whichever shard
// runs first: the error names the same member every time (it named m0,
// m1, m2 or m3 from run to run when shards raced for the budget).
func TestArchiveBudgetNamesOneMember(t *testing.T) {
	rec := hostile.CCOBZlib(make([]byte, 8000))
	var ms []ar.WriterMember
	for i := range 8 {
		ms = append(ms, ar.WriterMember{Name: fmt.Sprintf("m%d.o", i), Size: int64(len(rec)), Data: bytes.NewReader(rec)})
	}
	var lib bytes.Buffer
	if err := ar.WriteArchive(&lib, ms); err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // four shards race, on any machine
	for range 40 {
		cfg := hostileConfig(t, "a", lib.Bytes(), 20000)
		cfg.Targets = []string{"hipv4-amdgcn-amd-amdhsa--gfx906"}
		cfg.Outputs = []string{filepath.Join(cfg.TempDir, "out.a")}
		cfg.AllowMissingBundles = true
		err := Unbundle(cfg)
		if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "member m2.o") {
			t.Fatalf("got %v, want m2.o (the third of 8,000 bytes under 20,000) refused by the budget", err)
		}
	}
}
