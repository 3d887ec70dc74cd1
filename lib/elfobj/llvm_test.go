package elfobj

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

const bundlePrefix = "__CLANG_OFFLOAD_BUNDLE__"

// bundlePayloads are the sections the bundler adds for a host and a device.
func bundlePayloads() []struct{ name, data string } {
	return []struct{ name, data string }{
		{bundlePrefix + "host-x86_64-unknown-linux-gnu-", "\x00"},
		{bundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906", "odd-sized device payload \x01\x02\x03\xff"},
		{bundlePrefix + "openmp-nvptx64-nvidia-cuda--sm_70", ""},
	}
}

func bundleSections() []NewSection {
	var out []NewSection
	for _, p := range bundlePayloads() {
		out = append(out, NewSection{Name: p.name, Type: uint32(elf.SHT_PROGBITS), Flags: SHF_EXCLUDE,
			Align: 1, Size: int64(len(p.data)), Data: strings.NewReader(p.data)})
	}
	return out
}

func addFile(t testing.TB, in, out string, secs []NewSection) {
	t.Helper()
	src, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, _ := src.Stat()
	var buf bytes.Buffer
	if err := AddSections(&buf, src, st.Size(), secs); err != nil {
		t.Fatalf("AddSections(%s): %v", in, err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeFile(t testing.TB, in, out string, drop func(Section) bool) error {
	t.Helper()
	src, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, _ := src.Stat()
	var buf bytes.Buffer
	if err := RemoveSections(&buf, src, st.Size(), drop); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func isBundle(s Section) bool { return strings.HasPrefix(s.Name, bundlePrefix) }

// TestOpenMatchesDebugELF compares Open with the standard library's parser.
func TestOpenMatchesDebugELF(t *testing.T) {
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			b, err := os.ReadFile(o.path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			g, err := elf.NewFile(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if f.Class != g.Class || f.ByteOrder != g.ByteOrder || f.Type != g.Type || f.Machine != g.Machine {
				t.Fatalf("header: got %v %v %v %v, debug/elf %v %v %v %v", f.Class, f.ByteOrder, f.Type, f.Machine, g.Class, g.ByteOrder, g.Type, g.Machine)
			}
			if len(f.Sections) != len(g.Sections) {
				t.Fatalf("%d sections, debug/elf %d", len(f.Sections), len(g.Sections))
			}
			for i, s := range f.Sections {
				h := g.Sections[i].SectionHeader
				want := Section{Index: i, Name: h.Name, Type: uint32(h.Type), Flags: uint64(h.Flags), Addr: h.Addr,
					Offset: h.Offset, Size: h.FileSize, Align: h.Addralign, Link: h.Link, Info: h.Info, EntSize: h.Entsize,
					nameOff: s.nameOff}
				if h.Type == elf.SHT_NOBITS {
					want.Size = h.Size
				}
				if s != want {
					t.Errorf("section %d: got %+v, want %+v", i, s, want)
				}
			}
		})
	}
}

// TestAddSectionsMatchesObjcopy adds the bundler's sections and compares
// with `llvm-objcopy-22 --add-section --set-section-flags=readonly,exclude`.
func TestAddSectionsMatchesObjcopy(t *testing.T) {
	llvmtest.Need(t, "llvm-objcopy-22", "llvm-readelf-22")
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			dir := t.TempDir()
			ours := filepath.Join(dir, "ours.o")
			addFile(t, o.path, ours, bundleSections())
			args := []string{}
			for i, p := range bundlePayloads() {
				file := filepath.Join(dir, fmt.Sprint("payload", i))
				os.WriteFile(file, []byte(p.data), 0o644)
				args = append(args, "--add-section="+p.name+"="+file, "--set-section-flags="+p.name+"=readonly,exclude")
			}
			theirs := filepath.Join(dir, "theirs.o")
			llvmtest.Run(t, dir, "llvm-objcopy-22", append(args, o.path, theirs)...)
			compareSectionLists(t, readelfSections(t, ours), readelfSections(t, theirs))
			for i, p := range bundlePayloads() {
				file := filepath.Join(dir, fmt.Sprint("dump", i))
				llvmtest.Run(t, dir, "llvm-objcopy-22", "--dump-section="+p.name+"="+file, ours, filepath.Join(dir, "scratch.o"))
				if got, _ := os.ReadFile(file); string(got) != p.data {
					t.Errorf("section %s: dumped %q, want %q", p.name, got, p.data)
				}
			}
			equalLines(t, "symbols", normalisedSymbols(t, ours), normalisedSymbols(t, o.path))
			equalLines(t, "relocations", normalisedRelocs(t, ours), normalisedRelocs(t, o.path))
			checkReadersQuiet(t, o.path, ours)
			checkLinks(t, o, ours)
		})
	}
}

// compareSectionLists compares everything but offsets; string tables may
// differ in size (objcopy and we lay out names differently).
func compareSectionLists(t testing.TB, got, want []secInfo) {
	t.Helper()
	got, want = namedLinks(got), namedLinks(want)
	if len(got) != len(want) {
		t.Fatalf("%d sections, want %d:\n%v\n%v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Type == "STRTAB" && w.Type == "STRTAB" {
			g.Size, w.Size = "", ""
		}
		if g != w {
			t.Errorf("section %d: got %+v, want %+v", i, g, w)
		}
	}
}

// namedLinks replaces section indices in Lk (and Inf, for relocation
// sections) by section names, so lists compare across renumbering.
func namedLinks(secs []secInfo) []secInfo {
	out := append([]secInfo(nil), secs...)
	name := func(v string) string {
		if i, ok := atoi(v); ok && i > 0 && i < len(secs) {
			return secs[i].Name
		}
		return v
	}
	for i := range out {
		out[i].Link = name(out[i].Link)
		if out[i].Type == "REL" || out[i].Type == "RELA" || strings.Contains(out[i].Flags, "I") {
			out[i].Info = name(out[i].Info)
		}
	}
	return out
}

// checkLinks links the object with a main (native: gcc and clang with lld,
// then runs it; cross: ld.lld-22 -r) whenever the original links the same way.
func checkLinks(t testing.TB, o testObject, path string) {
	t.Helper()
	dir := filepath.Dir(path)
	if o.native {
		linkers := [][]string{{"gcc"}, {"clang-22", "-fuse-ld=lld"}}
		if o.cxx {
			linkers = [][]string{{"g++"}, {"clang++-22", "-fuse-ld=lld"}}
		}
		for i, l := range linkers {
			exe := filepath.Join(dir, fmt.Sprintf("exe%d", i))
			llvmtest.Run(t, dir, l[0], append(l[1:], "-x", "c", filepath.Join(objDir, "main.c"), "-x", "none", path, "-o", exe)...)
			llvmtest.Run(t, dir, exe)
		}
		return
	}
	out := filepath.Join(dir, "relinked.o")
	if _, _, err := tryTool(dir, "ld.lld-22", "-r", o.path, "-o", out); err != nil {
		t.Logf("original %s does not link with ld.lld-22 -r; skipping link check", o.name)
		return
	}
	llvmtest.Run(t, dir, "ld.lld-22", "-r", path, "-o", out)
	if o.target != "" {
		// A static link with the function as entry resolves every relocation.
		exe := filepath.Join(dir, "static.exe")
		if _, _, err := tryTool(dir, "ld.lld-22", "-e", "lib_add", o.path, "-o", exe); err == nil {
			llvmtest.Run(t, dir, "ld.lld-22", "-e", "lib_add", path, "-o", exe)
		}
	}
}

// TestRemoveSections removes the bundle sections again (ours, and the ones
// llvm-objcopy added) plus a low-numbered section so that every later index
// shifts, then checks symbols, relocations, groups, readers and linking.
func TestRemoveSections(t *testing.T) {
	llvmtest.Need(t, "llvm-objcopy-22", "llvm-readelf-22")
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			dir := t.TempDir()
			added := filepath.Join(dir, "added.o")
			addFile(t, o.path, added, bundleSections())
			stripped := filepath.Join(dir, "stripped.o")
			if err := removeFile(t, added, stripped, isBundle); err != nil {
				t.Fatal(err)
			}
			compareSectionLists(t, readelfSections(t, stripped), readelfSections(t, o.path))
			checkSameObject(t, o, stripped)

			// Removing an early section renumbers everything after it.
			shifted := filepath.Join(dir, "shifted.o")
			early := func(s Section) bool { return isBundle(s) || s.Name == ".early_empty" }
			if err := removeFile(t, added, shifted, early); err != nil {
				t.Fatal(err)
			}
			var wantKept []secInfo
			for _, s := range namedLinks(readelfSections(t, o.path)) {
				if s.Name != ".early_empty" {
					wantKept = append(wantKept, s)
				}
			}
			compareSectionLists(t, readelfSections(t, shifted), wantKept)
			checkSameObject(t, o, shifted)
		})
	}
}

// checkSameObject compares symbols, relocations and groups with the
// original object (normalised for indices), runs the readers and links.
func checkSameObject(t testing.TB, o testObject, path string) {
	t.Helper()
	equalLines(t, "symbols", normalisedSymbols(t, path), normalisedSymbols(t, o.path))
	equalLines(t, "relocations", normalisedRelocs(t, path), normalisedRelocs(t, o.path))
	equalLines(t, "groups", normalisedGroups(t, path), normalisedGroups(t, o.path))
	checkReadersQuiet(t, o.path, path)
	checkLinks(t, o, path)
}

// TestRemoveObjcopyAdded strips sections that llvm-objcopy added.
func TestRemoveObjcopyAdded(t *testing.T) {
	llvmtest.Need(t, "llvm-objcopy-22")
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			for i, p := range bundlePayloads() {
				file := filepath.Join(dir, fmt.Sprint("payload", i))
				os.WriteFile(file, []byte(p.data), 0o644)
				args = append(args, "--add-section="+p.name+"="+file, "--set-section-flags="+p.name+"=readonly,exclude")
			}
			theirs := filepath.Join(dir, "theirs.o")
			llvmtest.Run(t, dir, "llvm-objcopy-22", append(args, o.path, theirs)...)
			stripped := filepath.Join(dir, "stripped.o")
			if err := removeFile(t, theirs, stripped, isBundle); err != nil {
				t.Fatal(err)
			}
			compareSectionLists(t, readelfSections(t, stripped), readelfSections(t, o.path))
			checkSameObject(t, o, stripped)
		})
	}
}

// TestBundlerObject reads and strips what clang-offload-bundler-22 -type=o
// writes, and compares with the bundler's own host output.
func TestBundlerObject(t *testing.T) {
	llvmtest.Need(t, "clang-offload-bundler-22")
	for _, o := range objects(t) {
		if !o.native {
			continue
		}
		t.Run(o.name, func(t *testing.T) {
			dir := t.TempDir()
			dev := filepath.Join(dir, "dev.bin")
			devData := "device code object bytes\x00\x01"
			os.WriteFile(dev, []byte(devData), 0o644)
			fat := filepath.Join(dir, "fat.o")
			targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906:xnack+"
			llvmtest.Run(t, dir, "clang-offload-bundler-22", "-type=o", targets, "-input="+o.path, "-input="+dev, "-output="+fat)

			b, _ := os.ReadFile(fat)
			f, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, s := range f.Sections {
				if isBundle(s) {
					if s.Type != uint32(elf.SHT_PROGBITS) || s.Flags != SHF_EXCLUDE || s.Align != 1 {
						t.Errorf("%s: type %#x flags %#x align %d", s.Name, s.Type, s.Flags, s.Align)
					}
					data, _ := io.ReadAll(f.SectionReader(s))
					got[strings.TrimPrefix(s.Name, bundlePrefix)] = string(data)
				}
			}
			want := map[string]string{"host-x86_64-unknown-linux-gnu-": "\x00", "hip-amdgcn-amd-amdhsa--gfx906:xnack+": devData}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("bundle sections %q, want %q", got, want)
			}

			stripped := filepath.Join(dir, "stripped.o")
			if err := removeFile(t, fat, stripped, isBundle); err != nil {
				t.Fatal(err)
			}
			hostOut := filepath.Join(dir, "host-unbundled.o")
			devOut := filepath.Join(dir, "dev-unbundled.bin")
			llvmtest.Run(t, dir, "clang-offload-bundler-22", "-unbundle", "-type=o", targets, "-input="+fat,
				"-output="+hostOut, "-output="+devOut)
			compareSectionLists(t, readelfSections(t, stripped), readelfSections(t, hostOut))
			compareSectionLists(t, readelfSections(t, stripped), readelfSections(t, o.path))
			checkSameObject(t, o, stripped)
		})
	}
}

// TestArchiveSymbolsMatchLLVMAr compares ArchiveSymbols with the symbol
// table llvm-ar-22 writes for a one-member archive of each object.
func TestArchiveSymbolsMatchLLVMAr(t *testing.T) {
	llvmtest.Need(t, "llvm-ar-22")
	for _, o := range objects(t) {
		t.Run(o.name, func(t *testing.T) {
			a := filepath.Join(t.TempDir(), "x.a")
			llvmtest.Run(t, "", "llvm-ar-22", "rcD", a, o.path)
			ar, _ := os.ReadFile(a)
			// "!<arch>\n", then the "/" member: 60-byte header, big-endian
			// count, one offset per symbol, NUL-terminated names.
			if !bytes.HasPrefix(ar[8:], []byte("/ ")) {
				t.Fatalf("no symbol table in llvm-ar output")
			}
			var size int
			fmt.Sscan(string(ar[8+48:8+58]), &size)
			tab := ar[68 : 68+size]
			count := int(tab[0])<<24 | int(tab[1])<<16 | int(tab[2])<<8 | int(tab[3])
			names := strings.Split(string(tab[4+4*count:]), "\x00")[:count]

			b, _ := os.ReadFile(o.path)
			got, err := openBytes(t, b).ArchiveSymbols()
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, "archive symbols", got, names)
		})
	}
}
