package wrapper

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

func TestParse(t *testing.T) {
	for s, want := range map[string]Kind{"openmp": OpenMP, "cuda": CUDA, "hip": HIP} {
		if k, err := ParseKind(s); err != nil || k != want || k.String() != s {
			t.Errorf("ParseKind(%q) = %v, %v", s, k, err)
		}
	}
	for _, s := range []string{"", "sycl", "OpenMP", "hipv4"} {
		if _, err := ParseKind(s); !errors.Is(err, ErrUnknownKind) {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
	}
	if a, err := ParseEntryABI("legacy"); err != nil || a != Legacy {
		t.Errorf("legacy: %v %v", a, err)
	}
	if a, err := ParseEntryABI("llvm20"); err != nil || a != LLVM20 {
		t.Errorf("llvm20: %v %v", a, err)
	}
	if _, err := ParseEntryABI("llvm19"); err == nil {
		t.Error("llvm19 accepted")
	}
}

// TestOffloadBinarySpan: an OffloadBinary is registered by the image inside
// it (offset 0x90, 4 bytes in the LLVM-recorded vector), raw images whole.
func TestOffloadBinarySpan(t *testing.T) {
	sp, err := inspect(0, memImage(offloadBinaryVector()), OpenMP, false)
	if err != nil || sp != (span{0x90, 0x94}) {
		t.Fatalf("span %v, %v; want {0x90 0x94}", sp, err)
	}
	raw := elfFixture(t)
	sp, err = inspect(0, memImage(raw), OpenMP, false)
	if err != nil || sp != (span{0, int64(len(raw))}) {
		t.Fatalf("raw span %v, %v", sp, err)
	}
	ll := emit(t, "ll", []Image{memImage(offloadBinaryVector())}, Options{Kind: OpenMP})
	want := "ptr getelementptr ([152 x i8], ptr @.omp_offloading.device_image, i64 0, i64 144), ptr getelementptr ([152 x i8], ptr @.omp_offloading.device_image, i64 0, i64 148)"
	if !bytes.Contains(ll, []byte(want)) {
		t.Errorf("IR does not point inside the OffloadBinary:\n%s", ll)
	}
}

func TestErrors(t *testing.T) {
	ob, fb, bundle := memImage(offloadBinaryVector()), memImage(fatbinFixture()), memImage(bundleVector())
	truncated := offloadBinaryVector()
	binary.LittleEndian.PutUint64(truncated[8:], 4096) // Size past the end
	arch := ob
	arch.Arch = "gfx906"
	cases := []struct {
		name string
		imgs []Image
		o    Options
		want error
	}{
		{"no images", nil, Options{Kind: OpenMP}, ErrNoImages},
		{"kind 0", []Image{ob}, Options{}, ErrUnknownKind},
		{"kind 9", []Image{ob}, Options{Kind: 9}, ErrUnknownKind},
		{"two fatbins", []Image{fb, fb}, Options{Kind: CUDA}, ErrImageCount},
		{"empty", []Image{memImage(nil)}, Options{Kind: OpenMP}, ErrEmptyImage},
		{"nil data", []Image{{Size: 10}}, Options{Kind: OpenMP}, ErrEmptyImage},
		{"bundle for openmp", []Image{bundle}, Options{Kind: OpenMP}, ErrWrongImage},
		{"fatbin for openmp", []Image{fb}, Options{Kind: OpenMP}, ErrWrongImage},
		{"text for openmp", []Image{memImage([]byte("hello world"))}, Options{Kind: OpenMP}, ErrWrongImage},
		{"offload binary for cuda", []Image{ob}, Options{Kind: CUDA}, ErrWrongImage},
		{"bundle for cuda", []Image{bundle}, Options{Kind: CUDA}, ErrWrongImage},
		{"fatbin for hip", []Image{fb}, Options{Kind: HIP}, ErrWrongImage},
		{"truncated offload binary", []Image{memImage(truncated)}, Options{Kind: OpenMP}, offloadbin.ErrTruncated},
		{"short reader", []Image{{Data: strings.NewReader("\x7fELF"), Size: 100}}, Options{Kind: OpenMP}, io.ErrUnexpectedEOF},
		{"arch with llvm20", []Image{arch}, Options{Kind: OpenMP}, ErrArch},
		{"arch for some", []Image{arch, ob}, Options{Kind: OpenMP, ABI: Legacy}, ErrArch},
		{"bad triple", []Image{ob}, Options{Kind: OpenMP, Triple: "foo-bar"}, ErrTarget},
		{"darwin", []Image{ob}, Options{Kind: OpenMP, Triple: "x86_64-apple-darwin"}, ErrTarget},
		{"mach-o by suffix", []Image{ob}, Options{Kind: OpenMP, Triple: "x86_64-pc-linux-macho"}, ErrTarget},
		{"wasm", []Image{ob}, Options{Kind: OpenMP, Triple: "x86_64-pc-linux-wasm"}, ErrTarget},
		{"coff legacy", []Image{ob}, Options{Kind: OpenMP, Triple: "x86_64-pc-windows-msvc", ABI: Legacy}, ErrTarget},
		{"bad abi", []Image{ob}, Options{Kind: OpenMP, ABI: 7}, nil},
	}
	for _, c := range cases {
		for form, fn := range emitters {
			var b bytes.Buffer
			err := fn(&b, c.imgs, c.o)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s/%s: error %v, want %v", c.name, form, err, c.want)
			}
			if b.Len() != 0 {
				t.Errorf("%s/%s: %d bytes written before the error", c.name, form, b.Len())
			}
		}
	}
	// Assembly and objects exist for x86-64 and AArch64 only.
	for _, form := range []string{"s", "obj"} {
		var b bytes.Buffer
		err := emitters[form](&b, []Image{ob}, Options{Kind: OpenMP, Triple: "riscv64-unknown-linux-gnu"})
		if !errors.Is(err, ErrTarget) || b.Len() != 0 {
			t.Errorf("%s for riscv64: %v (%d bytes)", form, err, b.Len())
		}
	}
	// COFF hosts, and triples LLVM reads as ELF but that name Windows,
	// have the IR forms only.
	for _, triple := range []string{"x86_64-pc-windows-msvc", "x86_64-unknown-uefi", "x86_64-w64-mingw32"} {
		for form, fn := range emitters {
			var b bytes.Buffer
			err := fn(&b, []Image{fb}, Options{Kind: CUDA, Triple: triple})
			if ir := form == "ll" || form == "bc"; ir != (err == nil) || (!ir && !errors.Is(err, ErrTarget)) {
				t.Errorf("%s for %s: %v", form, triple, err)
			}
		}
	}
	// An ImageError names the file.
	im := memImage([]byte("nonsense"))
	im.Path = "dir/k.bin"
	err := EmitLL(io.Discard, []Image{im}, Options{Kind: OpenMP})
	if err == nil || !strings.Contains(err.Error(), "dir/k.bin") || !strings.Contains(err.Error(), "unrecognised data") {
		t.Errorf("error %q does not name the file and what it holds", err)
	}
}

// TestDeterministic emits every form twice, for every kind and ABI.
func TestDeterministic(t *testing.T) {
	for _, tc := range matrix(t) {
		for form := range emitters {
			a := emit(t, form, tc.imgs, tc.o)
			b := emit(t, form, tc.imgs, tc.o)
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: output differs between runs", tc.name, form)
			}
		}
	}
}

type matrixCase struct {
	name string
	imgs []Image
	o    Options
}

// matrix covers every kind, ABI and object-writer architecture, with
// in-memory images (inline data in C and assembly).
func matrix(t testing.TB) []matrixCase {
	ob, raw := memImage(offloadBinaryVector()), memImage(elfFixture(t))
	var out []matrixCase
	for _, triple := range []string{"x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"} {
		for _, abi := range []EntryABI{LLVM20, Legacy} {
			arch := func(im Image, a string) Image {
				if abi == Legacy {
					im.Arch = a
				}
				return im
			}
			out = append(out,
				matrixCase{"openmp/" + abi.String() + "/" + triple, []Image{arch(ob, "gfx906"), arch(raw, "gfx90a:xnack+")}, Options{Kind: OpenMP, ABI: abi, Triple: triple}},
				matrixCase{"cuda/" + abi.String() + "/" + triple, []Image{memImage(fatbinFixture())}, Options{Kind: CUDA, ABI: abi, Triple: triple}},
				matrixCase{"hip/" + abi.String() + "/" + triple, []Image{memImage(bundleVector())}, Options{Kind: HIP, ABI: abi, Triple: triple}})
		}
	}
	return out
}

func TestAsmQuote(t *testing.T) {
	if got := asmQuote("a\"b\\c\n"); got != `"a\"b\\c\012"` {
		t.Errorf("asmQuote: %s", got)
	}
}

// TestLegacyLayout checks the clang-offload-wrapper layout: names, the
// entries section, .offload_arch_list and __tgt_image_info contents,
// constructor and destructor of priority 1 in .text.startup.
func TestLegacyLayout(t *testing.T) {
	a, b := memImage(elfFixture(t)), memImage(offloadBinaryVector())
	a.Arch, b.Arch = "gfx906", "gfx90a:xnack+"
	obj := emit(t, "obj", []Image{a, b}, Options{Kind: OpenMP, ABI: Legacy})
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	bySym := map[string]elf.Symbol{}
	for _, s := range syms {
		bySym[s.Name] = s
	}
	secOf := func(name string) string {
		s, ok := bySym[name]
		if !ok || s.Section == elf.SHN_UNDEF {
			return "UND"
		}
		return f.Sections[s.Section].Name
	}
	for name, sec := range map[string]string{
		".omp_offloading.device_image":     ".rodata",
		".omp_offloading.device_image.1":   ".rodata",
		".omp_offloading.device_images":    ".data.rel.ro",
		".omp_offloading.descriptor":       ".data.rel.ro",
		".offload_image_info":              ".data.rel.ro",
		".offload_image_info.1":            ".data.rel.ro",
		"__offload_arch":                   ".offload_arch_list",
		"__offload_arch.1":                 ".offload_arch_list",
		"__dummy.omp_offloading.entry":     "omp_offloading_entries",
		".omp_offloading.descriptor_reg":   ".text.startup",
		".omp_offloading.descriptor_unreg": ".text.startup",
		"__start_omp_offloading_entries":   "UND",
		"__stop_omp_offloading_entries":    "UND",
		"__tgt_register_image_info":        "UND",
		"__tgt_register_lib":               "UND",
		"__tgt_unregister_lib":             "UND",
	} {
		if got := secOf(name); got != sec {
			t.Errorf("%s in %s, want %s", name, got, sec)
		}
	}
	if s := bySym["__tgt_register_image_info"]; elf.ST_BIND(s.Info) != elf.STB_WEAK {
		t.Errorf("__tgt_register_image_info is %v, want weak", elf.ST_BIND(s.Info))
	}
	if s := bySym["__start_omp_offloading_entries"]; elf.ST_VISIBILITY(s.Other) != elf.STV_HIDDEN {
		t.Error("__start_omp_offloading_entries is not hidden")
	}
	archs, _ := f.Section(".offload_arch_list").Data()
	if string(archs) != "gfx906\x00gfx90a:xnack+\x00" {
		t.Errorf(".offload_arch_list = %q", archs)
	}
	rel, _ := f.Section(".data.rel.ro").Data()
	info := bySym[".offload_image_info.1"]
	got := rel[info.Value : info.Value+12]
	if !bytes.Equal(got, []byte{1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}) {
		t.Errorf("__tgt_image_info {version, image_number, number_images} = % x, want 1 1 2", got)
	}
	for _, s := range []string{".init_array.1", ".fini_array.1"} {
		if f.Section(s) == nil {
			t.Errorf("no %s section", s)
		}
	}
}

// notesFor is the .note.openmp contents clang-offload-wrapper writes,
// derived by hand from the ELF note format: namesz, descsz, type, then
// "LLVMOMPOFFLOAD\0" and the descriptor, each padded to 4.
func notesFor(order binary.AppendByteOrder, version string) []byte {
	var b []byte
	for i, d := range []string{"1.0", "LLVM", version} {
		b = order.AppendUint32(b, 15)
		b = order.AppendUint32(b, uint32(len(d)))
		b = order.AppendUint32(b, uint32(i+1))
		b = append(b, "LLVMOMPOFFLOAD\x00\x00"...)
		b = append(b, d...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

// elf32BE is a minimal big-endian ELF32 file: header, one section with
// data, and the section name table.
func elf32BE() []byte {
	be := binary.BigEndian
	shstr := []byte("\x00.data\x00.shstrtab\x00")
	data := []byte("DATA")
	h := make([]byte, 52)
	copy(h, "\x7fELF\x01\x02\x01")
	be.PutUint16(h[16:], 1)  // ET_REL
	be.PutUint16(h[18:], 8)  // EM_MIPS
	be.PutUint32(h[20:], 1)  // version
	be.PutUint16(h[40:], 52) // ehsize
	be.PutUint16(h[46:], 40) // shentsize
	be.PutUint16(h[48:], 3)  // shnum
	be.PutUint16(h[50:], 2)  // shstrndx
	b := append(h, data...)
	strOff := len(b)
	b = append(b, shstr...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	be.PutUint32(b[32:], uint32(len(b))) // shoff
	sh := func(name, typ, off, size uint32) {
		s := make([]byte, 40)
		be.PutUint32(s[0:], name)
		be.PutUint32(s[4:], typ)
		be.PutUint32(s[16:], off)
		be.PutUint32(s[20:], size)
		be.PutUint32(s[32:], 1)
		b = append(b, s...)
	}
	sh(0, 0, 0, 0)
	sh(1, uint32(elf.SHT_PROGBITS), 52, 4)
	sh(7, uint32(elf.SHT_STRTAB), uint32(strOff), uint32(len(shstr)))
	return b
}

func readAll(t testing.TB, im Image) []byte {
	b := make([]byte, im.Size)
	if _, err := im.Data.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAddOpenMPNotes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []byte
		order binary.AppendByteOrder
	}{{"elf64le", elfFixture(t), binary.LittleEndian}, {"elf32be", elf32BE(), binary.BigEndian}} {
		orig, err := elf.NewFile(bytes.NewReader(tc.in))
		if err != nil {
			t.Fatalf("%s: fixture: %v", tc.name, err)
		}
		im, err := AddOpenMPNotes(Image{Data: bytes.NewReader(tc.in), Size: int64(len(tc.in)), Path: "x", Arch: "a"}, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if im.Path != "" || im.Arch != "a" {
			t.Errorf("%s: Path %q Arch %q", tc.name, im.Path, im.Arch)
		}
		out := readAll(t, im)
		f, err := elf.NewFile(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: result does not parse: %v", tc.name, err)
		}
		note := f.Section(".note.openmp")
		if note == nil || note.Type != elf.SHT_NOTE || note.Flags != 0 {
			t.Fatalf("%s: no SHT_NOTE .note.openmp: %+v", tc.name, note)
		}
		if d, _ := note.Data(); !bytes.Equal(d, notesFor(tc.order, DefaultProducerVersion)) {
			t.Errorf("%s: notes\n% x\nwant\n% x", tc.name, d, notesFor(tc.order, DefaultProducerVersion))
		}
		for i, s := range orig.Sections {
			n := f.Sections[i]
			a, _ := s.Data()
			b, _ := n.Data()
			if s.Name == ".shstrtab" { // grown by the new name
				b = b[:min(len(a), len(b))]
			}
			if s.Name != n.Name || s.Type != n.Type || !bytes.Equal(a, b) {
				t.Errorf("%s: section %d changed: %s -> %s", tc.name, i, s.Name, n.Name)
			}
		}
		if h := headerSize(tc.in); !bytes.Equal(out[h:len(tc.in)], tc.in[h:]) {
			t.Errorf("%s: original bytes after the ELF header changed", tc.name)
		}
	}
	if _, err := AddOpenMPNotes(memImage(offloadBinaryVector()), ""); !errors.Is(err, ErrNotELF) {
		t.Errorf("OffloadBinary: %v, want ErrNotELF", err)
	}
	bad := elfFixture(t)
	binary.LittleEndian.PutUint64(bad[40:], uint64(len(bad))) // e_shoff at the end
	var ne *NoteError
	if _, err := AddOpenMPNotes(memImage(bad), ""); !errors.As(err, &ne) {
		t.Errorf("section table past the end: %v", err)
	}
}

func FuzzInspect(f *testing.F) {
	f.Add(offloadBinaryVector())
	f.Add(bundleVector())
	f.Add(fatbinFixture())
	f.Add(elfFixture(f))
	f.Add([]byte("CCOB\x03\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range []Kind{OpenMP, CUDA, HIP} {
			sp, err := inspect(0, memImage(b), k, false)
			if err == nil && (sp.begin < 0 || sp.end > int64(len(b)) || sp.begin >= sp.end) {
				t.Fatalf("%v: span %v outside %d bytes", k, sp, len(b))
			}
		}
	})
}

func FuzzAddOpenMPNotes(f *testing.F) {
	f.Add(elfFixture(f))
	f.Add(elf32BE())
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		im, err := AddOpenMPNotes(memImage(b), "1")
		if err != nil {
			return
		}
		if im.Size > int64(len(b))*2+4096 {
			t.Fatalf("output of %d bytes for %d input bytes", im.Size, len(b))
		}
		out := readAll(t, im)
		if h := headerSize(b); len(out) < len(b) || !bytes.Equal(out[h:len(b)], b[h:]) {
			t.Fatal("the input's bytes after the ELF header were not kept")
		}
	})
}

// headerSize is the ELF header size for the class byte of b.
func headerSize(b []byte) int {
	if b[elf.EI_CLASS] == byte(elf.ELFCLASS32) {
		return 52
	}
	return 64
}

// With AnyImage, as llvm-offload-wrapper, bytes of no known format and
// empty files are registered whole; without, they are refused.
func TestAnyImage(t *testing.T) {
	for _, b := range [][]byte{[]byte("hello"), {}} {
		for _, k := range []Kind{OpenMP, CUDA, HIP} {
			if _, err := inspect(0, memImage(b), k, false); err == nil {
				t.Errorf("%v, %q: accepted without AnyImage", k, b)
			}
			sp, err := inspect(0, memImage(b), k, true)
			if err != nil || sp != (span{0, int64(len(b))}) {
				t.Errorf("%v, %q with AnyImage: span %v, %v", k, b, sp, err)
			}
		}
	}
}
