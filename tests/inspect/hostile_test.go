package inspect_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rules-offload/rules_offload/internal/capped"
	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// runRSS runs the offload binary (argv[0] names the personality: a link to
// it) in dir and returns its exit code, output and peak RSS in bytes, as
// capped.Run measures it (getrusage would count this test's own size).
func runRSS(t *testing.T, dir string, argv ...string) (int, string, int64) {
	t.Helper()
	prog := offloadBin
	if argv[0] != "offload" {
		prog = filepath.Join(dir, argv[0])
		os.Symlink(offloadBin, prog)
	}
	r, err := capped.Run(dir, append(os.Environ(), "TMPDIR="+dir), 1<<40, 10*time.Minute, prog, argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	return r.Code, r.Output, r.PeakRSS
}

// Eight compressed OffloadBinaries of ~1 GiB each, side by side (the
// review's 897 KiB input: 2.1 GB RSS and 31 s for one, 12.2 GB and 198 s
// for eight): refused before inflating, by every command that reads them.
func TestBombOfOffloadBinariesRefused(t *testing.T) {
	dir := t.TempDir()
	in := bytes.Repeat(hostile.OffloadBinaryBomb(1<<30-4096, "gfx90a"), 8)
	os.WriteFile(filepath.Join(dir, "bomb.bin"), in, 0o644)
	for _, c := range []struct {
		argv []string
		hint string // how to raise the budget
	}{
		{[]string{"offload", "extract", "--list", "bomb.bin"}, "raise the limit with --max-uncompressed-size"},
		{[]string{"offload", "inspect", "bomb.bin"}, "raise the limit with --max-uncompressed-size"},
		{[]string{"llvm-offload-binary", "bomb.bin", "--image=file=x.o,arch=gfx90a"}, "`offload extract --max-uncompressed-size` reads larger inputs"},
	} {
		argv := c.argv
		code, out, rss := runRSS(t, dir, argv...)
		if code != 1 || !strings.Contains(out, "bomb.bin") ||
			!strings.Contains(out, "decompressed data would exceed 4294967296 bytes for this input (0 already inflated") || !strings.Contains(out, c.hint) {
			t.Errorf("%q: exit %d, output %q; want the budget refusal before any inflation, naming the input and saying %q", argv, code, out, c.hint)
		}
		if rss > 64<<20 {
			t.Errorf("%q: peak RSS %d MiB, want under 64", argv, rss>>20)
		}
	}
}

// Five CCOB records of 1 GiB side by side (164 KiB; four cost 29.5 s in the
// review) exceed the default budget together: refused before any is
// decoded, by every command that decompresses them.
func TestConcatenatedCCOBsRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "five.bin"), bytes.Repeat(hostile.CCOB(nil, 1<<30), 5), 0o644)
	for _, argv := range [][]string{
		{"offload", "extract", "--list", "five.bin"},
		{"offload", "inspect", "five.bin"},
		{"clang-offload-bundler", "-list", "-type=o", "-input=five.bin"},
	} {
		code, out, rss := runRSS(t, dir, argv...)
		if code != 1 || !strings.Contains(out, "five.bin") || !strings.Contains(out, "would exceed 4294967296 bytes for this input (0 already inflated, 5368709120 more declared)") ||
			!strings.Contains(out, "raise the limit with --max-uncompressed-size") {
			t.Errorf("%q: exit %d, output %q; want the five records refused at once, naming the input and the flag", argv, code, out)
		}
		if rss > 64<<20 {
			t.Errorf("%q: peak RSS %d MiB, want under 64", argv, rss>>20)
		}
	}
}

// One large compressed OffloadBinary is inflated to a temporary file, not
// into memory, and the file is gone when the command ends.
func TestLargeOffloadBinaryInflatesToDisk(t *testing.T) {
	dir := t.TempDir()
	const size = 256 << 20
	os.WriteFile(filepath.Join(dir, "big.bin"), hostile.OffloadBinaryBomb(size, "gfx90a"), 0o644)
	code, out, rss := runRSS(t, dir, "offload", "extract", "--list", "big.bin")
	if code != 0 || !strings.Contains(out, "\t268435456\t") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if rss > 64<<20 {
		t.Errorf("peak RSS %d MiB inflating %d MiB, want under 64", rss>>20, size>>20)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "offload-*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// The review's 265-byte CCOB holding 16 CCOBs of 256 MiB (4 GiB of temp
// writes and 27 s): refused at once.
func TestNestedCCOBRefused(t *testing.T) {
	dir := t.TempDir()
	inner := bytes.Repeat(hostile.CCOB(nil, 256<<20), 16)
	bomb := filepath.Join(dir, "nested.bin")
	os.WriteFile(bomb, hostile.CCOBZlib(inner), 0o644)
	for _, argv := range [][]string{
		{"offload", "extract", "--list", "nested.bin"},
		{"offload", "inspect", "nested.bin"},
	} {
		code, out, _ := runRSS(t, dir, argv...)
		if code != 1 || !strings.Contains(out, "compressed data inside compressed data") || !strings.Contains(out, "--allow-nested-compression") {
			t.Errorf("%q: exit %d, output %q; want nested compression refused", argv, code, out)
		}
	}
	code, out, _ := runRSS(t, dir, "offload", "extract", "--list", "--allow-nested-compression", "--max-uncompressed-size=1G", "nested.bin")
	if code != 1 || !strings.Contains(out, "would exceed 1073741824 bytes") {
		t.Errorf("allowed nesting: exit %d, output %q; want the 1 GiB budget", code, out)
	}
}

// Colliding names (arch a, a, a.1 and A) give distinct files, and under
// umask 077 they are private.
func TestExtractNamesAndModes(t *testing.T) {
	dir := t.TempDir()
	var entries []offloadbin.Entry
	for i, arch := range []string{"a", "a", "a.1", "A"} {
		entries = append(entries, offloadbin.Entry{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
			Strings: []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
			Image:   strings.NewReader(string(rune('0' + i))), Size: 1})
	}
	var bin bytes.Buffer
	if _, err := offloadbin.WriteEntries(&bin, 2, entries, offloadbin.NoCompression); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "in.bin"), bin.Bytes(), 0o644)
	sh := func(script string) string {
		t.Helper()
		r := mustRun(t, dir, nil, "sh", "-c", script)
		return r.Stdout
	}
	sh("umask 077 && " + offloadBin + " extract -o out in.bin")
	contents := map[string]bool{}
	filepath.WalkDir(filepath.Join(dir, "out"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		contents[string(b)] = true
		if fi, _ := d.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v under umask 077, want 0600", p, fi.Mode().Perm())
		}
		return nil
	})
	if len(contents) != 4 {
		t.Errorf("4 images gave %d distinct files", len(contents))
	}
	// Replacing keeps the replaced file's mode; new files follow umask 022.
	out := filepath.Join(dir, "out")
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	os.Chmod(names[0], 0o755)
	sh("umask 022 && " + offloadBin + " extract -o out in.bin && " + offloadBin + " extract -o fresh in.bin")
	if fi, _ := os.Stat(names[0]); fi.Mode().Perm() != 0o755 {
		t.Errorf("replaced 0755 file is now %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(names[1]); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced 0600 file is now %v", fi.Mode().Perm())
	}
	fresh, _ := filepath.Glob(filepath.Join(dir, "fresh", "*"))
	for _, p := range fresh {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v under umask 022, want 0644", p, fi.Mode().Perm())
		}
	}
}

// extract -o of thousands of images holds no descriptor per image.
func TestExtractManyImagesFewFiles(t *testing.T) {
	dir := t.TempDir()
	var entries []offloadbin.Entry
	for i := 0; i < 3000; i++ {
		entries = append(entries, offloadbin.Entry{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
			Strings: []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx906"}},
			Image:   strings.NewReader("x"), Size: 1})
	}
	var bin bytes.Buffer
	if _, err := offloadbin.WriteEntries(&bin, 2, entries, offloadbin.NoCompression); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "in.bin"), bin.Bytes(), 0o644)
	mustRun(t, dir, nil, "sh", "-c", "ulimit -n 64 && "+offloadBin+" extract -o out in.bin > /dev/null")
	if names, _ := filepath.Glob(filepath.Join(dir, "out", "*")); len(names) != 3000 {
		t.Errorf("%d files written, want 3000", len(names))
	}
}

// sparseBinary writes an OffloadBinary holding one image of size zero
// bytes without writing them: a hole in the file.
func sparseBinary(t *testing.T, path string, size int64) {
	var bin bytes.Buffer
	e := offloadbin.Entry{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
		Strings: []offloadbin.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx906"}},
		Image:   strings.NewReader("x"), Size: 1}
	if _, err := offloadbin.WriteEntries(&bin, 2, []offloadbin.Entry{e}, offloadbin.NoCompression); err != nil {
		t.Fatal(err)
	}
	b := bin.Bytes()
	// Version 2 layout: Size at 8; the one entry at 32, its image offset
	// at 32+24 and image size at 32+32.
	le := func(off int, v uint64) {
		for i := 0; i < 8; i++ {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	at := int64(b[56]) | int64(b[57])<<8
	le(8, uint64(at+size))
	le(64, uint64(size))
	if err := os.WriteFile(path, b[:at], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, at+size); err != nil {
		t.Fatal(err)
	}
}

// SIGTERM or SIGINT while an output is being written leaves no temporary
// file (one left 1.2 GB) and ends with the status a shell reports.
func TestSignalRemovesTemporaryFiles(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		dir := t.TempDir()
		sparseBinary(t, filepath.Join(dir, "big.bin"), 4<<30)
		cmd := exec.Command(offloadBin, "extract", "-o", "out", "big.bin")
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal as soon as the output's temporary file exists. Poll by
		// time, not by count: on a fast machine a fixed number of polls
		// ended before the process had started (CI, stop 34).
		var tmps []string
		for deadline := time.Now().Add(60 * time.Second); len(tmps) == 0 && time.Now().Before(deadline); {
			tmps, _ = filepath.Glob(filepath.Join(dir, "out", ".*.tmp*"))
			if len(tmps) == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		if len(tmps) == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: no temporary output appeared", c.sig)
		}
		cmd.Process.Signal(c.sig)
		cmd.Wait()
		if got := cmd.ProcessState.ExitCode(); got != c.code {
			t.Errorf("%v: exit status %d, want %d (%v)", c.sig, got, c.code, cmd.ProcessState)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "out", "*")); len(left) != 0 {
			t.Errorf("%v: left %v", c.sig, left)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "out", ".*")); len(left) != 0 {
			t.Errorf("%v: left %v", c.sig, left)
		}
	}
}
