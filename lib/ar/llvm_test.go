package ar

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Cross-checks against the LLVM 22 tools. They skip loudly when a tool is
// missing.

// fileMember makes a WriterMember from a file on disk; symbols are taken
// with debug/elf when the file is an ELF object (LLVM's archive rules:
// non-local, defined, not STT_FILE/STT_SECTION, in .symtab order).
func fileMember(t *testing.T, path string) WriterMember {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := WriterMember{Name: filepath.Base(path), Size: int64(len(data)), Data: bytes.NewReader(data)}
	if f, err := elf.NewFile(bytes.NewReader(data)); err == nil {
		m.Object = true
		syms, err := f.Symbols()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			t.Fatal(err)
		}
		for _, s := range syms {
			typ := elf.ST_TYPE(s.Info)
			if elf.ST_BIND(s.Info) == elf.STB_LOCAL || s.Section == elf.SHN_UNDEF ||
				typ == elf.STT_FILE || typ == elf.STT_SECTION {
				continue
			}
			m.Symbols = append(m.Symbols, s.Name)
		}
	}
	return m
}

func randName(rng *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789._-"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.Intn(len(chars))]
	}
	if b[0] == '.' || b[0] == '-' {
		b[0] = 'x'
	}
	return string(b)
}

func compareWithLLVMAr(t *testing.T, dir string, files []string, env []string, threshold uint64) []byte {
	t.Helper()
	out := filepath.Join(dir, "llvm.a")
	os.Remove(out)
	if r := llvmtest.RunResult(t, dir, append(os.Environ(), env...), "llvm-ar-22", append([]string{"rcD", out}, files...)...); r.Code != 0 {
		t.Fatalf("llvm-ar-22 rcD: %v", r)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var members []WriterMember
	for _, f := range files {
		members = append(members, fileMember(t, filepath.Join(dir, f)))
	}
	var got bytes.Buffer
	if err := writeArchive(&got, members, threshold); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("archive of %q differs from llvm-ar-22 rcD:\n got %q\nwant %q", files, got.Bytes(), want)
	}
	return want
}

// TestWriterMatchesLLVMAr byte-compares with `llvm-ar-22 rcD` over seeded
// member sets: name lengths around the 16-byte limit, odd and zero sizes.
func TestWriterMatchesLLVMAr(t *testing.T) {
	llvmtest.Need(t, "llvm-ar-22")
	lengths := []int{1, 2, 14, 15, 16, 17, 30}
	for seed := int64(1); seed <= 25; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			dir := t.TempDir()
			seen := map[string]bool{}
			var files []string
			for i := rng.Intn(6); i >= 0; i-- {
				name := randName(rng, lengths[rng.Intn(len(lengths))])
				if seen[name] {
					continue
				}
				seen[name] = true
				data := make([]byte, rng.Intn(40))
				rng.Read(data)
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, name)
			}
			compareWithLLVMAr(t, dir, files, nil, sym64Threshold)
		})
	}
}

// buildObjects compiles small C files into ELF objects for symbol tables.
func buildObjects(t *testing.T, dir string) []string {
	t.Helper()
	llvmtest.Need(t, "clang-22")
	srcs := map[string]string{
		"funcs.c":                "int g = 1; int h; static int s; int add(int a){return a+g+s;} __attribute__((weak)) int w(void){return 2;}\n",
		"nosyms.c":               "static int only_local(void){return 1;} int (*keep(void))(void){return 0;}\n",
		"locals.c":               "static int x = 3; static int f(void){ return x; } void *p(void){ return (void*)f; }\n",
		"empty1.c":               "static int unused;\n",
		"longname_object_file.c": "int long_named_function_symbol_for_archive(void){return 7;}\n",
	}
	var objs []string
	for _, name := range []string{"funcs.c", "empty1.c", "longname_object_file.c", "locals.c", "nosyms.c"} {
		src := filepath.Join(dir, name)
		if err := os.WriteFile(src, []byte(srcs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"x86_64-linux-gnu", "aarch64-linux-gnu"} {
			obj := strings.TrimSuffix(name, ".c") + "-" + target + ".o"
			llvmtest.Run(t, dir, "clang-22", "--target="+target, "-c", "-o", obj, name)
			objs = append(objs, obj)
		}
	}
	return objs
}

func TestWriterMatchesLLVMArObjects(t *testing.T) {
	llvmtest.Need(t, "llvm-ar-22")
	dir := t.TempDir()
	objs := buildObjects(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "blob.bin"), []byte("raw device blob"), 0o644); err != nil {
		t.Fatal(err)
	}
	sets := [][]string{
		objs,
		{"empty1-x86_64-linux-gnu.o"}, // object without symbols: empty table
		{"blob.bin", "empty1-aarch64-linux-gnu.o"}, // blob plus symbol-less object
		{"blob.bin", "funcs-x86_64-linux-gnu.o", "locals-aarch64-linux-gnu.o"},
	}
	for i, files := range sets {
		t.Run(fmt.Sprint("set", i), func(t *testing.T) {
			compareWithLLVMAr(t, dir, files, nil, sym64Threshold)
		})
	}
	// LLVM switches to "/SYM64/" past a threshold it lets tests lower.
	t.Run("sym64", func(t *testing.T) {
		want := compareWithLLVMAr(t, dir, objs[:4], []string{"SYM64_THRESHOLD=300"}, 300)
		if !bytes.HasPrefix(want, []byte("!<arch>\n/SYM64/")) {
			t.Fatal("llvm-ar-22 did not write a /SYM64/ table; the threshold test is vacuous")
		}
	})
}

// TestWriterMatchesBundlerArchive compares with the device archives that
// `clang-offload-bundler-22 -unbundle -type=a` writes
// (docs/provenance.md#objects-archives).
func TestWriterMatchesBundlerArchive(t *testing.T) {
	llvmtest.Need(t, "clang-offload-bundler-22", "llvm-ar-22", "gcc")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.c"), []byte("int hf(int x){return x+1;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	llvmtest.Run(t, dir, "gcc", "-c", "h.c", "-o", "host.o")
	const gfx = "hip-amdgcn-amd-amdhsa--gfx906"
	blobs := map[string]string{"fat": "devblob1", "fatB": "odd", "fat_with_a_long_stem": "x", "z": strings.Repeat("q", 33)}
	var fats []string
	for _, stem := range []string{"fat", "fatB", "fat_with_a_long_stem", "z"} {
		blob := filepath.Join(dir, stem+".bin")
		if err := os.WriteFile(blob, []byte(blobs[stem]), 0o644); err != nil {
			t.Fatal(err)
		}
		llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=o",
			"-targets=host-x86_64-unknown-linux-gnu,"+gfx, "-input=host.o", "-input="+blob, "-output="+stem+".o")
		fats = append(fats, stem+".o")
	}
	llvmtest.Run(t, dir, "llvm-ar-22", append([]string{"rc", "fat.a"}, fats...)...)
	llvmtest.Run(t, dir, "clang-offload-bundler-22", "-unbundle", "-type=a", "-targets="+gfx,
		"-input=fat.a", "-output=dev.a")
	want, err := os.ReadFile(filepath.Join(dir, "dev.a"))
	if err != nil {
		t.Fatal(err)
	}
	var members []WriterMember
	for _, stem := range []string{"fat", "fatB", "fat_with_a_long_stem", "z"} {
		// stem + "-" + ID + stem + ".bc" with ':' replaced by '_' (gfx → .bc).
		name := strings.ReplaceAll(stem+"-"+gfx+stem+".bc", ":", "_")
		members = append(members, WriterMember{Name: name, Size: int64(len(blobs[stem])), Data: strings.NewReader(blobs[stem])})
	}
	var got bytes.Buffer
	if err := WriteArchive(&got, members); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("device archive differs from the bundler's:\n got %q\nwant %q", got.Bytes(), want)
	}

	// A missing target with -allow-missing-bundles yields an empty archive.
	llvmtest.Run(t, dir, "clang-offload-bundler-22", "-unbundle", "-type=a", "-allow-missing-bundles",
		"-targets=hip-amdgcn-amd-amdhsa--gfx1030", "-input=fat.a", "-output=empty.a")
	want, _ = os.ReadFile(filepath.Join(dir, "empty.a"))
	got.Reset()
	if err := WriteArchive(&got, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("empty archive: got %q, want %q", got.Bytes(), want)
	}
}

// TestReadToolArchives reads archives made by llvm-ar-22 (GNU and BSD) and
// GNU ar and compares members with the input files; thin archives fail.
func TestReadToolArchives(t *testing.T) {
	llvmtest.Need(t, "llvm-ar-22")
	dir := t.TempDir()
	objs := buildObjects(t, dir)
	files := []string{objs[0], objs[3]}
	contents := map[string]string{"x1": "abc", "e": "", "averyveryverylongname17": "17 bytes of data!", "sixteen-chars-xx": "s"}
	for name, data := range contents {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files = append(files, "x1", "e", "averyveryverylongname17", "sixteen-chars-xx")
	type tool struct {
		name string
		args []string
	}
	tools := []tool{
		{"llvm-ar-22", []string{"rcD", "--format=gnu"}},
		{"llvm-ar-22", []string{"rcD", "--format=bsd"}},
		{"llvm-ar-22", []string{"rc", "--format=gnu"}},
	}
	if llvmtest.Has("ar") {
		tools = append(tools, tool{"ar", []string{"rcD"}}, tool{"ar", []string{"rcS"}})
	} else {
		t.Log("SKIPPING GNU ar part: ar not on PATH")
	}
	for i, tl := range tools {
		t.Run(fmt.Sprint(tl.name, tl.args), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("t%d.a", i))
			llvmtest.Run(t, dir, tl.name, append(append(tl.args, out), files...)...)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(files) {
				t.Fatalf("read %d members, want %d", len(got), len(files))
			}
			for i, f := range files {
				want, _ := os.ReadFile(filepath.Join(dir, f))
				if got[i].name != f || got[i].data != string(want) {
					t.Errorf("member %d: got %q (%d bytes), want %q (%d bytes)", i, got[i].name, len(got[i].data), f, len(want))
				}
			}
		})
	}
	t.Run("thin", func(t *testing.T) {
		out := filepath.Join(dir, "thin.a")
		llvmtest.Run(t, dir, "llvm-ar-22", "rcD", "--thin", out, "x1")
		b, _ := os.ReadFile(out)
		if _, err := NewReader(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrThin) {
			t.Fatalf("got %v, want ErrThin", err)
		}
	})
}
