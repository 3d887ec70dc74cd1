package packager

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// Bucket numbers of common keys in LLVM 22's 64-bucket DenseMap, measured on
// the real tool (docs/provenance.md#offload-binary).
func TestHashBuckets(t *testing.T) {
	for key, want := range map[string]uint32{
		"feature": 2, "version": 5, "arch": 9, "file": 19, "triple": 24,
		"features": 25, "format": 26, "kind": 37, "link-opts": 38, "compile-opts": 51,
	} {
		if got := uint32(llvmHashString(key)) & 63; got != want {
			t.Errorf("bucket(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestParseImageArgs(t *testing.T) {
	a := ParseImageArgs("file=a.o,triple=t,arch=x,kind=openmp,file=b.o,noeq,=v,arch=y=z")
	want := map[string]string{"file": "a.o,b.o", "triple": "t", "arch": "x,y=z", "kind": "openmp", "noeq": "", "": "v"}
	got := map[string]string{}
	for _, kv := range a.Pairs() {
		got[kv.Key] = kv.Value
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pairs %q", a.Pairs())
	}
	// arch (bucket 9) iterates before triple (24) and kind (37).
	var order []string
	for _, kv := range ParseImageArgs("kind=x,triple=t,arch=a").Pairs() {
		order = append(order, kv.Key)
	}
	if strings.Join(order, " ") != "arch triple kind" {
		t.Errorf("order %v", order)
	}
}

// A map that grows past 48 entries keeps every key exactly once.
func TestDenseMapGrowth(t *testing.T) {
	var pieces []string
	for i := 0; i < 200; i++ {
		pieces = append(pieces, "k"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
	}
	a := ParseImageArgs(strings.Join(pieces, ","))
	seen := map[string]bool{}
	for _, kv := range a.Pairs() {
		if seen[kv.Key] {
			t.Fatalf("duplicate %q", kv.Key)
		}
		seen[kv.Key] = true
	}
	if len(seen) != 200 {
		t.Fatalf("%d keys", len(seen))
	}
}

func TestSources(t *testing.T) {
	if _, err := Sources([]string{"triple=x"}); !errors.Is(err, ErrFileRequired) || err.Error() != "'file' is a required image arguments" {
		t.Fatalf("missing file: %v", err)
	}
	s, err := Sources([]string{"file=a,file=b,kind=hip,triple=t", "file=c"})
	if err != nil || len(s) != 3 {
		t.Fatalf("%v %+v", err, s)
	}
	if s[0].File != "a" || s[1].File != "b" || s[1].OffloadKind != offloadbin.OffloadHIP || !reflect.DeepEqual(s[1].Strings, []offloadbin.KV{{Key: "triple", Value: "t"}}) {
		t.Errorf("sources %+v", s)
	}
	if s[2].OffloadKind != 0 || len(s[2].Strings) != 0 {
		t.Errorf("third %+v", s[2])
	}
}

func TestDetectImageKind(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       offloadbin.ImageKind
	}{
		{"a.o", "\x7fELF", offloadbin.ImageObject},
		{"a.o", "BC\xc0\xde", offloadbin.ImageBitcode},
		{"a.cubin", "\xde\xc0\x17\x0b", offloadbin.ImageBitcode},
		{"a", "", offloadbin.ImageNone},
		{"dir.o/a", "", offloadbin.ImageNone},
		{"a.spv", "", offloadbin.ImageNone},
		{"a.tar.s", "", offloadbin.ImagePTX},
		{".fatbin", "", offloadbin.ImageFatbinary},
		{"x.bc", "BC", offloadbin.ImageBitcode},
	} {
		if got := DetectImageKind(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("DetectImageKind(%q, %q) = %v", tc.name, tc.head, got)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"../p.bin": "p", "a.b.c": "a.b", ".bashrc": "", "dir/noext": "noext", "-": "-", "x/.": ".", "x/..": "..",
	} {
		if got := llvmStem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// The 152-byte vector of docs/provenance.md#offload-binary, produced through the --image path.
func TestPackageVector(t *testing.T) {
	s, err := Sources([]string{"file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp"})
	if err != nil {
		t.Fatal(err)
	}
	s[0].Data, s[0].Size = strings.NewReader("AAAA"), 4
	var buf bytes.Buffer
	if _, err := Package(&buf, s); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if len(b) != 152 || b[0x20] != 1 || b[0x22] != 1 || !bytes.Equal(b[0x68:0x8e], []byte("\x00arch\x00triple\x00amdgcn-amd-amdhsa\x00gfx906\x00")) {
		t.Fatalf("package:\n%x", b)
	}
}

func img(kind offloadbin.OffloadKind, ik offloadbin.ImageKind, kv ...string) *offloadbin.Image {
	im := &offloadbin.Image{OffloadKind: kind, ImageKind: ik}
	for i := 0; i+1 < len(kv); i += 2 {
		im.Strings = append(im.Strings, offloadbin.KV{Key: kv[i], Value: kv[i+1]})
	}
	return im
}

func TestMatch(t *testing.T) {
	im := img(offloadbin.OffloadOpenMP, offloadbin.ImageBitcode, "triple", "t", "arch", "gfx906:xnack+")
	for spec, want := range map[string]bool{
		"":                        true, // one empty key, absent from the image: "" == ""
		"file=x,triple=t":         true,
		"kind=openmp":             true,
		"kind=hip":                false,
		"arch=gfx906":             false, // no target-ID compatibility in 22
		"arch=gfx906:xnack+":      true,
		"missing=":                true,
		"missing=x":               false,
		"triple=t,triple=t":       false, // joined to "t,t"
		"kind=bogus":              false,
		"file=a,file=b,triple=t,": true,
	} {
		if got := Match(im, ParseImageArgs(spec)); got != want {
			t.Errorf("Match(%q) = %v", spec, got)
		}
	}
	if !Match(img(0, 0), ParseImageArgs("kind=bogus")) {
		t.Error("unknown kind should match kind none")
	}
}

// Triples and arches that would put control characters, other
// unprintable characters or bytes that are not UTF-8 into a file name (an
// ESC that repaints the terminal, a newline that forges a line of `ls`)
// have them replaced by '_'; printable UTF-8 and spaces stay, as in LLVM.
func TestGeneratedNamePrintable(t *testing.T) {
	for _, c := range []struct{ triple, arch, want string }{
		{"amdgcn\x1b[2J\nforged", "gfx906", "in-amdgcn_[2J_forged-gfx906.0.o"},
		{"t\x00\x7f\xff", "a\u202eb", "in-t___-a_b.0.o"},
		{"spirv64 intel", "\u00e9", "in-spirv64 intel-\u00e9.0.o"},
	} {
		im := img(offloadbin.OffloadHIP, offloadbin.ImageObject, "triple", c.triple, "arch", c.arch)
		if got := GeneratedName("dir/in.bin", im, 0); got != c.want {
			t.Errorf("triple %q, arch %q: named %q, want %q", c.triple, c.arch, got, c.want)
		}
	}
}

func TestPlanExtraction(t *testing.T) {
	found := []Found{
		{Image: *img(offloadbin.OffloadOpenMP, offloadbin.ImageObject, "triple", "t", "arch", "a"), Source: "in.bin"},
		{Image: *img(offloadbin.OffloadOpenMP, offloadbin.ImageSPIRV, "triple", "t"), Source: "in.bin"},
		{Image: *img(offloadbin.OffloadHIP, offloadbin.ImagePTX, "triple", "../x/y", "arch", ".."), Source: "in.bin"},
	}
	p, err := PlanExtraction("dir/in.bin", found, []string{"kind=openmp", "kind=hip", "triple=t,file=out.o", "triple=none"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, o := range p.Outputs {
		paths = append(paths, o.Path)
	}
	want := []string{"in-t-a.0.o", "in-t-.1.", "in-___x_y-__.0.s", "out.o"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if len(p.Warnings) != 1 || p.Warnings[0] != "Multiple inputs match to a single file, 'out.o'" {
		t.Errorf("warnings %q", p.Warnings)
	}
	if p.Outputs[3].Images[0].ImageKind != offloadbin.ImageSPIRV {
		t.Error("file= must take the last match")
	}
	if p, _ := PlanExtraction("in", found, nil, false); len(p.Outputs) != 0 {
		t.Error("LLVM 22 extracts nothing without --image")
	}
	if _, err := PlanExtraction("in", found, []string{"kind=openmp"}, true); !errors.Is(err, ErrArchiveNeedsFile) {
		t.Errorf("archive without file: %v", err)
	}
	if p, err := PlanExtraction("in", found, []string{"kind=sycl"}, true); err != nil || len(p.Outputs) != 0 {
		t.Errorf("no match with --archive: %v", err)
	}
}
