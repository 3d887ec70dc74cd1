package elfobj

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// offloadSection is what `offload embed` adds: an OffloadBinary-looking
// payload in a SHT_LLVM_OFFLOADING section.
func offloadSection(data string) NewSection {
	return NewSection{Name: ".llvm.offloading", Type: SHT_LLVM_OFFLOADING, Flags: SHF_EXCLUDE, Align: 8,
		Size: int64(len(data)), Data: strings.NewReader(data)}
}

const offloadPayload = "\x10\xff\x10\xad\x01\x00\x00\x00payload-bytes-24"

// objcopyOffloading adds the same section with llvm-objcopy-22.
func objcopyOffloading(t *testing.T, dir, in, out string) {
	t.Helper()
	payload := filepath.Join(dir, "offload.bin")
	os.WriteFile(payload, []byte(offloadPayload), 0o644)
	// --set-section-alignment does not reach sections added in the same run.
	tmp := out + ".tmp"
	llvmtest.Run(t, dir, "llvm-objcopy-22", "--add-section=.llvm.offloading="+payload,
		"--set-section-flags=.llvm.offloading=readonly,exclude",
		"--set-section-type=.llvm.offloading=0x6fff4c0b", in, tmp)
	llvmtest.Run(t, dir, "llvm-objcopy-22", "--set-section-alignment=.llvm.offloading=8", tmp, out)
}

// TestEmbedOffloadingObjects adds .llvm.offloading to every test object
// (gcc-made ones included), compares with llvm-objcopy, finds it again by
// type and removes it.
func TestEmbedOffloadingObjects(t *testing.T) {
	llvmtest.Need(t, "llvm-objcopy-22")
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			dir := t.TempDir()
			ours := filepath.Join(dir, "ours.o")
			addFile(t, o.path, ours, []NewSection{offloadSection(offloadPayload)})
			theirs := filepath.Join(dir, "theirs.o")
			objcopyOffloading(t, dir, o.path, theirs)
			compareSectionLists(t, readelfSections(t, ours), readelfSections(t, theirs))
			for _, p := range []string{ours, theirs} {
				b, _ := os.ReadFile(p)
				f, err := Open(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				secs := f.SectionsByType(SHT_LLVM_OFFLOADING)
				if len(secs) != 1 || secs[0].Align != 8 || secs[0].Flags != SHF_EXCLUDE {
					t.Fatalf("%s: offloading sections %+v", p, secs)
				}
				var got bytes.Buffer
				if _, err := got.ReadFrom(f.SectionReader(secs[0])); err != nil || got.String() != offloadPayload {
					t.Fatalf("%s: payload %q, %v", p, got.String(), err)
				}
			}
			checkReadersQuiet(t, o.path, ours)
			checkLinks(t, o, ours)
			stripped := filepath.Join(dir, "stripped.o")
			drop := func(s Section) bool { return s.Type == SHT_LLVM_OFFLOADING }
			if err := removeFile(t, ours, stripped, drop); err != nil {
				t.Fatal(err)
			}
			compareSectionLists(t, readelfSections(t, stripped), readelfSections(t, o.path))
			checkSameObject(t, o, stripped)
		})
	}
}

// buildLinked builds an executable and a shared object with gcc.
func buildLinked(t *testing.T) (dir, exe, so, soUser string) {
	t.Helper()
	llvmtest.Need(t, "gcc", "llvm-objcopy-22", "llvm-readelf-22")
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "lib.c"), []byte(libC), 0o644)
	os.WriteFile(filepath.Join(dir, "main.c"), []byte(mainC), 0o644)
	llvmtest.Run(t, dir, "gcc", "-g", "-O1", "main.c", "lib.c", "-o", "app")
	llvmtest.Run(t, dir, "gcc", "-g", "-shared", "-fPIC", "lib.c", "-o", "libx.so")
	llvmtest.Run(t, dir, "gcc", "main.c", "-L.", "-lx", "-Wl,-rpath,"+dir, "-o", "app-so")
	return dir, filepath.Join(dir, "app"), filepath.Join(dir, "libx.so"), filepath.Join(dir, "app-so")
}

// checkImageUnchanged compares program headers and every loadable byte.
func checkImageUnchanged(t *testing.T, orig, path string) {
	t.Helper()
	a, _ := os.ReadFile(orig)
	b, _ := os.ReadFile(path)
	// The ELF header lies in the first segment; only its section-table
	// fields (e_shoff, e_shnum, e_shstrndx of ELF64) may change.
	for _, x := range [][]byte{a, b} {
		clear(x[40:48])
		clear(x[60:64])
	}
	fa, err := elf.NewFile(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(fa.Progs) != len(fb.Progs) {
		t.Fatalf("%d program headers, want %d", len(fb.Progs), len(fa.Progs))
	}
	for i, p := range fa.Progs {
		q := fb.Progs[i]
		if p.ProgHeader != q.ProgHeader {
			t.Fatalf("program header %d: %+v, want %+v", i, q.ProgHeader, p.ProgHeader)
		}
		end := p.Off + p.Filesz
		if !bytes.Equal(a[p.Off:end], b[q.Off:end]) {
			t.Fatalf("segment %d bytes changed", i)
		}
	}
	equalLines(t, "segment mapping", segmentLines(t, path), segmentLines(t, orig))
}

func TestExecutableAndSharedObject(t *testing.T) {
	dir, exe, so, soUser := buildLinked(t)
	for _, tc := range []struct{ name, path string }{{"exec", exe}, {"shared", so}} {
		t.Run(tc.name, func(t *testing.T) {
			orig := tc.path + ".orig"
			b, _ := os.ReadFile(tc.path)
			os.WriteFile(orig, b, 0o755)
			defer os.WriteFile(tc.path, b, 0o755) // restore for the other case

			added := filepath.Join(dir, tc.name+"-added")
			addFile(t, orig, added, []NewSection{offloadSection(offloadPayload)})
			theirs := filepath.Join(dir, tc.name+"-theirs")
			objcopyOffloading(t, dir, orig, theirs)
			compareSectionLists(t, readelfSections(t, added), readelfSections(t, theirs))
			checkImageUnchanged(t, orig, added)
			checkReadersQuiet(t, orig, added)
			runModified(t, tc.path, added, exe, soUser)

			stripped := filepath.Join(dir, tc.name+"-stripped")
			drop := func(s Section) bool { return s.Type == SHT_LLVM_OFFLOADING || s.Name == ".comment" }
			if err := removeFile(t, added, stripped, drop); err != nil {
				t.Fatal(err)
			}
			var want []secInfo
			for _, s := range namedLinks(readelfSections(t, orig)) {
				if s.Name != ".comment" {
					want = append(want, s)
				}
			}
			compareSectionLists(t, readelfSections(t, stripped), want)
			checkImageUnchanged(t, orig, stripped)
			checkReadersQuiet(t, orig, stripped)
			equalLines(t, "symbols", normalisedSymbols(t, stripped), normalisedSymbols(t, orig))
			runModified(t, tc.path, stripped, exe, soUser)

			// Allocated sections stay out of reach.
			src := bytes.NewReader(b)
			alloc := offloadSection("x")
			alloc.Flags |= uint64(elf.SHF_ALLOC)
			if err := AddSections(&bytes.Buffer{}, src, int64(len(b)), []NewSection{alloc}); !errors.Is(err, ErrUnsupported) {
				t.Errorf("adding an allocated section: %v, want ErrUnsupported", err)
			}
			dropText := func(s Section) bool { return s.Name == ".text" }
			if err := RemoveSections(&bytes.Buffer{}, src, int64(len(b)), dropText); !errors.Is(err, ErrUnsupported) {
				t.Errorf("removing .text: %v, want ErrUnsupported", err)
			}
		})
	}
}

// segmentLines is `llvm-readelf-22 -l` without the unmapped-sections line.
func segmentLines(t *testing.T, path string) []string {
	var out []string
	for _, l := range strings.Split(llvmtest.Run(t, "", "llvm-readelf-22", "-l", "-W", path), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "None") {
			out = append(out, l)
		}
	}
	return out
}

// runModified installs the modified file in place of target and runs the
// program that uses it.
func runModified(t *testing.T, target, modified, exe, soUser string) {
	t.Helper()
	b, _ := os.ReadFile(modified)
	if err := os.WriteFile(target, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if target == exe {
		llvmtest.Run(t, "", exe)
	} else {
		llvmtest.Run(t, "", soUser)
	}
}
