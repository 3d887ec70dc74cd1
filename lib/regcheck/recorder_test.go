package regcheck

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/capped"
	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/internal/llvmtest"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// The tests here compile the recorder (rules/private/registration/
// recorder.c) with the host C compiler, link it with a C file of
// registration constructors as offload_registration_test links a program's
// libraries with it, run that under the robustness caps and read what it
// recorded.

// repoRoot is where the recorder's #include resolves from.
const repoRoot = "../.."

// prologue declares what the constructors call, as the generated code
// does.
const prologue = `#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
struct W { int32_t magic, version; const void* data; const void* unused; };
struct D { unsigned x, y, z; };
void** __hipRegisterFatBinary(const struct W*);
void __hipRegisterFunction(void**, const void*, char*, const char*, unsigned, void*, void*, void*, void*, int*);
void** __cudaRegisterFatBinary(const struct W*);
void __cudaRegisterFatBinaryEnd(void**);
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*);
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int);
void __cudaRegisterHostVar(void**, const char*, char*, size_t);
void __cudaRegisterUnifiedTable(void*, void*, void*, void*, void*);
unsigned __cudaPushCallConfiguration(struct D, struct D, size_t, void*);
int __cudaPopCallConfiguration(struct D*, struct D*, size_t*, void*);
int __cudaGetKernel(void**, const void*);
int main(void) { return 0; }
static void Register(void) __attribute__((constructor));
`

// cArray is b as a C array initializer.
func cArray(b []byte) string {
	var s strings.Builder
	s.WriteString("{")
	for i, c := range b {
		if i > 0 {
			s.WriteString(",")
		}
		fmt.Fprintf(&s, "%d", c)
	}
	s.WriteString("}")
	return s.String()
}

// recorderProgram links the recorder with body (after prologue), as the
// rule does: -no-pie, unresolved runtime calls left at 0, main wrapped.
func recorderProgram(t *testing.T, body string) string {
	t.Helper()
	cc := llvmtest.Tool(t, "cc")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(prologue+body), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	cmd := exec.Command(cc, "-no-pie", "-I", repoRoot, "-o", exe, src, filepath.Join(repoRoot, "rules/private/registration/recorder.c"),
		"-Wl,-z,lazy", "-Wl,--unresolved-symbols=ignore-all", "-Wl,--wrap=main")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	return exe
}

// runRecorder runs exe with the record path as its argument, under the caps.
func runRecorder(t *testing.T, exe, path string) capped.Result {
	t.Helper()
	r, err := capped.Run(filepath.Dir(exe), os.Environ(), capped.MaxRSS, capped.MaxTime, exe, path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Over != "" {
		t.Errorf("the recorder passed the %s cap: %v", r.Over, r)
	}
	return r
}

// recorded runs exe and parses its record, which must be complete.
func recorded(t *testing.T, exe string) (*Record, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.record")
	if r := runRecorder(t, exe, path); r.Code != 0 {
		t.Fatalf("recorder: %v", r)
	}
	b := mustRead(t, path)
	return mustParse(t, b), b
}

// wantRefused runs exe and wants it to fail saying want, with nothing of
// secret in what it wrote.
func wantRefused(t *testing.T, name, exe, want, secret string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.record")
	r := runRecorder(t, exe, path)
	b, _ := os.ReadFile(path)
	if r.Code != 3 || !strings.Contains(r.Output, want) {
		t.Errorf("%s: %v; want exit 3 saying %q", name, r, want)
	}
	if secret != "" && bytes.Contains(b, []byte(secret)) {
		t.Errorf("%s: the record holds %q, from memory that is not the fat binary", name, secret)
	}
	if _, err := Parse(bytes.NewReader(b), int64(len(b))); err == nil {
		t.Errorf("%s: what the recorder left parses as a whole record", name)
	}
}

// bundleHeader is a clang offload bundle header of one entry.
func bundleHeader(id string, offset, size, idLen uint64) []byte {
	b := []byte("__CLANG_OFFLOAD_BUNDLE__")
	b = binary.LittleEndian.AppendUint64(b, 1)
	b = binary.LittleEndian.AppendUint64(b, offset)
	b = binary.LittleEndian.AppendUint64(b, size)
	b = binary.LittleEndian.AppendUint64(b, idLen)
	return append(b, id...)
}

// A bundle whose entry ends past the fat binary: in a heap block (next to
// another allocation holding a secret) the recorder copied the adjacent
// heap into the record; in the program's data, an entry or an ID of 2^40
// bytes crashed it. It now reads only within the loaded segment that holds
// the fat binary and refuses what runs past it.
func TestRecorderBoundsBundleSizes(t *testing.T) {
	heap := recorderProgram(t, fmt.Sprintf(`
static void Register(void) {
  static const unsigned char header[] = %s;
  unsigned char* block = malloc(sizeof header);
  char* secret = malloc(64);
  strcpy(secret, "SECRET-OF-ANOTHER-ALLOCATION");
  memcpy(block, header, sizeof header);
  static struct W w = {0x48495046, 1, 0, 0};
  w.data = block;
  __hipRegisterFatBinary(&w);
}
`, cArray(bundleHeader("hipv4-amdgcn-amd-amdhsa--gfx906", 0, 512, 31))))
	wantRefused(t, "heap block", heap, "is not within the program's loaded data", "SECRET")
	for _, c := range []struct {
		name   string
		header []byte
		want   string
	}{
		{"entry of 2^40 bytes", bundleHeader("hipv4-amdgcn-amd-amdhsa--gfx906", 0, 1<<40, 31), "a bundle entry runs past the program's data"},
		{"ID of 2^40 bytes", bundleHeader("hipv4-amdgcn-amd-amdhsa--gfx906", 0, 8, 1<<40), "a bundle entry's ID runs past the program's data"},
		{"2^40 entries", append(bundleHeader("", 0, 0, 0)[:24], binary.LittleEndian.AppendUint64(nil, 1<<40)...), "runs past the program's data"},
		{"no magic", []byte("not a bundle at all, not a CCOB"), "not a clang offload bundle"},
	} {
		exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x48495046, 1, fatbin, 0};
static void Register(void) { __hipRegisterFatBinary(&w); }
`, cArray(c.header)))
		wantRefused(t, c.name, exe, c.want, "")
	}
}

// A HIP fat binary compressed by clang --offload-compress is a CCOB: its
// size is its header's total size (version 2: 32 bits, version 3: 64). It
// was recorded as 0 bytes, which the check then failed on. Version 1 has
// no total size, and is refused.
func TestRecorderCompressedBundles(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"}
	v3 := hostile.CCOBZlib(append(hostile.BundleHeader(ids, []int64{0, 4}), "code"...))
	// Version 2: the same payload behind a 24-byte header, sizes of 32 bits.
	v2 := append([]byte("CCOB\x02\x00"), v3[6:8]...)
	v2 = binary.LittleEndian.AppendUint32(v2, uint32(len(v3)-8))
	v2 = binary.LittleEndian.AppendUint32(v2, uint32(binary.LittleEndian.Uint64(v3[16:])))
	v2 = append(v2, v3[24:]...)
	v1 := append([]byte("CCOB\x01\x00"), v3[6:8]...)
	v1 = append(v1, v2[12:]...)
	for name, ccob := range map[string][]byte{"version 3": v3, "version 2": v2} {
		// More bytes after the fat binary, as in a .hip_fatbin section.
		exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x48495046, 1, fatbin, 0};
static void Register(void) { __hipRegisterFatBinary(&w); }
`, cArray(append(append([]byte(nil), ccob...), "more data after it"...))))
		rec, b := recorded(t, exe)
		if len(rec.Units) != 1 || len(rec.Units[0].Blobs) != 1 {
			t.Fatalf("%s: %d units", name, len(rec.Units))
		}
		blob := rec.Units[0].Blobs[0]
		if got := b[blob.Offset : blob.Offset+blob.Size]; !bytes.Equal(got, ccob) {
			t.Errorf("%s: recorded %d bytes, want the %d of the CCOB", name, len(got), len(ccob))
		}
	}
	exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x48495046, 1, fatbin, 0};
static void Register(void) { __hipRegisterFatBinary(&w); }
`, cArray(v1)))
	wantRefused(t, "version 1", exe, "version 1", "")
}

// cudaFatbin is an NVIDIA fat binary of one cubin defining kernel K and
// variable v.
func cudaFatbin(t *testing.T) []byte {
	t.Helper()
	fb, err := nvfatbin.Write([]nvfatbin.Image{{Kind: nvfatbin.KindELF, Arch: 90, Data: fakeCubin(90, []string{"K"}, []string{"v"})}}, nvfatbin.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fb
}

// What the registration constructors of a program built by CUDA 12 and 13
// call (cudafe++'s stubs in ../../shared/fixtures/cuda13/stub, the entry
// points CUDA 13's libcudart_static.a defines: testdata/
// cudart13-registration-symbols.txt): __cudaRegisterUnifiedTable and
// __cudaRegisterHostVar were not defined, so a call jumped to address 0;
// a launch from a constructor (push, __cudaGetKernel, pop) too. All are
// defined: registration is recorded as before, the rest accepted, and
// launches refused, so nothing launches.
func TestRecorderCUDA13Calls(t *testing.T) {
	exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x466243b1, 1, fatbin, 0};
static char host_v, host_h;
static void Register(void) {
  void** h = __cudaRegisterFatBinary(&w);
  __cudaRegisterFunction(h, "K", "K", "K", -1, 0, 0, 0, 0, 0);
  __cudaRegisterVar(h, &host_v, "v", "v", 0, 1, 0, 0);
  __cudaRegisterHostVar(h, "h", &host_h, 1);
  static unsigned char table[64];
  __cudaRegisterUnifiedTable(table, 0, 0, 0, 0);
  __cudaRegisterFatBinaryEnd(h);
  struct D grid = {1, 1, 1}, block = {1, 1, 1};
  void* kernel = 0;
  if (__cudaPushCallConfiguration(grid, block, 0, 0) == 0) abort();
  if (__cudaGetKernel(&kernel, (const void*)Register) == 0) abort();
  size_t shared;
  void* stream;
  if (__cudaPopCallConfiguration(&grid, &block, &shared, &stream) == 0) abort();
}
`, cArray(cudaFatbin(t))))
	rec, _ := recorded(t, exe)
	if len(rec.Units) != 1 || rec.Units[0].Kind != "cuda" || strings.Join(rec.Units[0].Functions, " ") != "K" || strings.Join(rec.Units[0].Vars, " ") != "v" {
		t.Errorf("recorded %+v; want one CUDA unit registering K and v", rec.Units)
	}
	// Every registration entry point of CUDA 13's runtime is defined.
	src := string(mustRead(t, filepath.Join(repoRoot, "rules/private/registration/recorder.c")))
	for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, "testdata/cudart13-registration-symbols.txt"))), "\n") {
		f := strings.Fields(line)
		if name := f[len(f)-1]; !strings.Contains(src, " "+name+"(") {
			t.Errorf("the recorder does not define %s, which CUDA 13's runtime does", name)
		}
	}
}

// A record that cannot be written whole fails the program: on a full disk
// (/dev/full) it exited 0 with a record cut short, which then passed.
func TestRecorderWriteErrors(t *testing.T) {
	exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x466243b1, 1, fatbin, 0};
static void Register(void) {
  void** h = __cudaRegisterFatBinary(&w);
  __cudaRegisterFunction(h, "K", "K", "K", -1, 0, 0, 0, 0, 0);
}
`, cArray(cudaFatbin(t))))
	if r := runRecorder(t, exe, "/dev/full"); r.Code != 3 || !strings.Contains(r.Output, "writing /dev/full: No space left on device") {
		t.Errorf("/dev/full: %v; want exit 3 naming the error", r)
	}
	if r := runRecorder(t, exe, filepath.Join(t.TempDir(), "missing", "r.record")); r.Code != 3 || !strings.Contains(r.Output, "opening") {
		t.Errorf("a path in no directory: %v; want exit 3", r)
	}
}

// Registered names must end within the program's data and hold no
// newline, which would forge a line of the record.
func TestRecorderBoundsNames(t *testing.T) {
	for _, c := range []struct{ name, arg, want string }{
		{"newline", `"K\nfatbin 7 cuda 0x466243b1 0"`, "holds a newline"},
		{"wild pointer", `(const char*)16`, "is not within the program's loaded data"},
	} {
		exe := recorderProgram(t, fmt.Sprintf(`
static const unsigned char fatbin[] = %s;
static const struct W w = {0x466243b1, 1, fatbin, 0};
static void Register(void) {
  void** h = __cudaRegisterFatBinary(&w);
  __cudaRegisterFunction(h, "K", "K", %s, -1, 0, 0, 0, 0, 0);
}
`, cArray(cudaFatbin(t)), c.arg))
		wantRefused(t, c.name, exe, c.want, "")
	}
}
