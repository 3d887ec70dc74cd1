package regcheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/nvfatbin"
)

// A names fixture keeps of a real CUDA record only what the check reads:
// per fat binary the registered names and per image its target, format,
// kernels and the registered variables it defines; and the kernels the host
// program can launch.
// TestWriteNamesFixture writes one from a record and its recorder binary;
// namesRecord turns one back into a record of minimal cubins and PTX, which
// the check reads through the same readers (nvfatbin, elfobj) as real ones.
//
//	fatbin
//	function NAME | var NAME
//	image TARGET FORMAT
//	kernel NAME | symbol NAME
//	host NAME

// TestWriteNamesFixture writes a names fixture when
// REGCHECK_NAMES="RECORD HOST OUT" is set (docs/provenance.md).
func TestWriteNamesFixture(t *testing.T) {
	spec := strings.Fields(os.Getenv("REGCHECK_NAMES"))
	if len(spec) != 3 {
		t.Skip("REGCHECK_NAMES=\"RECORD HOST OUT\" not set")
	}
	rec := mustParse(t, mustRead(t, spec[0]))
	hb := mustRead(t, spec[1])
	host, err := HostKernels(bytes.NewReader(hb), int64(len(hb)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, u := range rec.Units {
		if u.Kind != "cuda" {
			t.Fatalf("names fixtures are for CUDA records, got %s", u.Kind)
		}
		fmt.Fprintln(&b, "fatbin")
		for _, f := range u.Functions {
			fmt.Fprintln(&b, "function", f)
			seen[f] = true
		}
		for _, v := range u.Vars {
			fmt.Fprintln(&b, "var", v)
		}
		imgs, err := rec.Images(u)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range imgs {
			fmt.Fprintln(&b, "image", im.Target, im.Format)
			kernels := map[string]bool{}
			for _, k := range im.Kernels {
				fmt.Fprintln(&b, "kernel", k)
				kernels[k], seen[k] = true, true
			}
			// Other symbols only where a variable is registered by
			// that name: the check looks for nothing else.
			var syms []string
			for _, v := range u.Vars {
				if im.Symbols[v] && !kernels[v] {
					syms = append(syms, v)
				}
			}
			sort.Strings(syms)
			for _, s := range syms {
				fmt.Fprintln(&b, "symbol", s)
			}
		}
	}
	var hs []string
	for k := range host {
		if seen[k] {
			hs = append(hs, k)
		}
	}
	sort.Strings(hs)
	for _, h := range hs {
		fmt.Fprintln(&b, "host", h)
	}
	if err := os.WriteFile(spec[2], []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// namesRecord builds a record and the host kernels from a names fixture.
func namesRecord(t *testing.T, path string) ([]byte, map[string]bool) {
	t.Helper()
	var out bytes.Buffer
	out.WriteString(Magic + "\n")
	host := map[string]bool{}
	var images []nvfatbin.Image
	var names []string
	var im *nvfatbin.Image
	var kernels, syms []string
	handle := -1
	flushImage := func() {
		if im == nil {
			return
		}
		if im.Kind == nvfatbin.KindPTX {
			im.Data = fakePTX(kernels, syms)
		} else {
			im.Data = fakeCubin(im.Arch, kernels, syms)
		}
		images = append(images, *im)
		im, kernels, syms = nil, nil, nil
	}
	flush := func() {
		flushImage()
		if handle < 0 {
			return
		}
		fb, err := nvfatbin.Write(images, nvfatbin.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "fatbin %d cuda 0x466243b1 %d\n", handle, len(fb))
		out.Write(fb)
		out.WriteString("\n")
		for _, n := range names {
			fmt.Fprintf(&out, "%s\n", strings.Replace(n, " ", fmt.Sprintf(" %d ", handle), 1))
		}
		images, names = nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, path)))
	sc.Buffer(nil, maxLine)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "fatbin":
			flush()
			handle++
		case len(f) == 2 && (f[0] == "function" || f[0] == "var"):
			names = append(names, f[0]+" "+f[1])
		case len(f) == 3 && f[0] == "image":
			flushImage()
			kind, arch := nvfatbin.KindELF, strings.TrimPrefix(f[1], "sm_")
			if strings.HasPrefix(f[1], "compute_") {
				kind, arch = nvfatbin.KindPTX, strings.TrimPrefix(f[1], "compute_")
			}
			n, err := strconv.Atoi(arch)
			if err != nil {
				t.Fatalf("%s: target %q", path, f[1])
			}
			im = &nvfatbin.Image{Kind: kind, Arch: n, Name: f[1]}
		case len(f) == 2 && f[0] == "kernel":
			kernels = append(kernels, f[1])
		case len(f) == 2 && f[0] == "symbol":
			syms = append(syms, f[1])
		case len(f) == 2 && f[0] == "host":
			host[f[1]] = true
		default:
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
	}
	flush()
	return withEnd(out.Bytes()), host
}

// fakePTX declares kernels as entries and symbols as globals.
func fakePTX(kernels, syms []string) []byte {
	var b strings.Builder
	b.WriteString(".version 7.8\n.target sm_90\n.address_size 64\n\n")
	for _, s := range syms {
		fmt.Fprintf(&b, ".visible .global .align 4 .b32 %s;\n", s)
	}
	for _, k := range kernels {
		fmt.Fprintf(&b, ".visible .entry %s(\n)\n{\n\tret;\n}\n", k)
	}
	return []byte(b.String())
}

// fakeCubin is an ELF64 file for EM_CUDA with a symbol table only:
// kernels are STT_FUNC with STO_ENTRY, symbols STT_OBJECT, all global.
func fakeCubin(arch int, kernels, syms []string) []byte {
	le := binary.LittleEndian
	strtab := []byte{0}
	var symtab []byte
	symtab = append(symtab, make([]byte, 24)...) // the null symbol
	add := func(name string, typ byte, other byte) {
		e := make([]byte, 24)
		le.PutUint32(e, uint32(len(strtab)))
		e[4] = 1<<4 | typ // STB_GLOBAL
		e[5] = other
		le.PutUint16(e[6:], 1) // defined in section 1
		symtab = append(symtab, e...)
		strtab = append(append(strtab, name...), 0)
	}
	for _, k := range kernels {
		add(k, 2, stoCUDAEntry) // STT_FUNC
	}
	for _, s := range syms {
		add(s, 1, 0) // STT_OBJECT
	}
	shstr := []byte("\x00.strtab\x00.symtab\x00.shstrtab\x00")
	pad := func(b []byte) []byte {
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
		return b
	}
	strOff := 64
	body := pad(append([]byte(nil), strtab...))
	symOff := strOff + len(body)
	body = append(body, symtab...)
	shstrOff := strOff + len(body)
	body = pad(append(body, shstr...))
	shOff := strOff + len(body)

	h := make([]byte, 64)
	copy(h, "\x7fELF")
	h[4], h[5], h[6], h[7] = 2, 1, 1, 0x33 // ELFCLASS64, little endian, version, CUDA ABI
	le.PutUint16(h[16:], 2)                // ET_EXEC
	le.PutUint16(h[18:], 190)              // EM_CUDA
	le.PutUint32(h[20:], 1)
	le.PutUint64(h[40:], uint64(shOff))
	le.PutUint32(h[48:], uint32(arch)|uint32(arch)<<16)
	le.PutUint16(h[52:], 64)
	le.PutUint16(h[58:], 64)
	le.PutUint16(h[60:], 4)
	le.PutUint16(h[62:], 3)
	sh := func(name, typ uint32, off, size int, link, info uint32, align, entsize uint64) []byte {
		s := make([]byte, 64)
		le.PutUint32(s, name)
		le.PutUint32(s[4:], typ)
		le.PutUint64(s[24:], uint64(off))
		le.PutUint64(s[32:], uint64(size))
		le.PutUint32(s[40:], link)
		le.PutUint32(s[44:], info)
		le.PutUint64(s[48:], align)
		le.PutUint64(s[56:], entsize)
		return s
	}
	out := append(h, body...)
	out = append(out, make([]byte, 64)...)
	out = append(out, sh(1, 3, strOff, len(strtab), 0, 0, 1, 0)...)   // .strtab
	out = append(out, sh(9, 2, symOff, len(symtab), 1, 1, 8, 24)...)  // .symtab
	out = append(out, sh(17, 3, shstrOff, len(shstr), 0, 0, 1, 0)...) // .shstrtab
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, b []byte) *Record {
	t.Helper()
	rec, err := Parse(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
