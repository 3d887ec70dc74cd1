package wrapper

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// goldenFile holds the SHA-256 of every output the golden matrix writes,
// taken from the code before the registration became one plan lowered by
// each back-end. Regenerate only on purpose: WRAPPER_GOLDEN=update.
const goldenFile = "testdata/golden.sha256"

// goldenCases is a broad matrix of kinds, ABIs, hosts, reader LLVMs and
// options; every form is written for each (errors are recorded too).
func goldenCases(t testing.TB) []matrixCase {
	ob, raw := offloadBinaryVector(), elfFixture(t)
	pkg := append(append([]byte{}, ob...), ob...)
	file := func(name string, b []byte) Image { im := memImage(b); im.Path = name; return im }
	withArch := func(im Image, a string) Image { im.Arch = a; return im }
	var out []matrixCase
	add := func(name string, imgs []Image, o Options) {
		out = append(out, matrixCase{name, imgs, o})
	}
	hosts := []string{"x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu", "x86_64-pc-windows-msvc", "riscv64-unknown-linux-gnu"}
	for _, host := range hosts {
		for _, abi := range []EntryABI{LLVM20, Legacy} {
			for _, v := range []int{0, 14, 15, 19, 22} {
				o := Options{ABI: abi, Triple: host, LLVM: v}
				tag := fmt.Sprintf("%s/%s/llvm%d", host, abi, v)
				o.Kind = OpenMP
				add("openmp/mem/"+tag, []Image{memImage(ob), memImage(raw)}, o)
				add("openmp/file/"+tag, []Image{file("a.bin", ob), file("b dir/b\"x.o", raw)}, o)
				add("openmp/arch/"+tag, []Image{withArch(memImage(ob), "gfx906"), withArch(memImage(raw), "gfx90a:xnack+")}, o)
				w := o
				w.WholeImages = true
				add("openmp/whole/"+tag, []Image{memImage(ob)}, w)
				pk := o
				pk.Packages = true
				add("openmp/packages/"+tag, []Image{memImage(pkg), memImage(raw)}, pk)
				a := o
				a.AnyImage = true
				add("openmp/any/"+tag, []Image{memImage(nil), memImage([]byte("text"))}, a)
				o.Kind = CUDA
				add("cuda/mem/"+tag, []Image{memImage(fatbinFixture())}, o)
				add("cuda/file/"+tag, []Image{file("f.fatbin", fatbinFixture())}, o)
				o.Kind = HIP
				add("hip/mem/"+tag, []Image{memImage(bundleVector())}, o)
				add("hip/file/"+tag, []Image{file("h.hipfb", bundleVector())}, o)
				a.Kind = HIP
				add("hip/any/"+tag, []Image{memImage([]byte("not a bundle"))}, a)
			}
		}
	}
	return out
}

// goldenHashes writes every form of every golden case and returns one
// line per output: case, form, the first 8 bytes of the SHA-256 of the
// bytes (or of the error) and whether it is an error.
func goldenHashes(t testing.TB) []string {
	var lines []string
	for _, tc := range goldenCases(t) {
		for form, fn := range emitters {
			if tc.o.LLVM != 0 && form != "ll" && form != "bc" {
				continue // the reader LLVM matters to the IR forms only
			}
			var b bytes.Buffer
			err := fn(&b, tc.imgs, tc.o)
			if err != nil {
				b.Reset()
				b.WriteString("error: " + err.Error())
			}
			h := sha256.Sum256(b.Bytes())
			lines = append(lines, fmt.Sprintf("%s %s %s %t", tc.name, form, hex.EncodeToString(h[:8]), err != nil))
		}
	}
	sort.Strings(lines)
	return lines
}

// TestGoldenOutputs: every output of the golden matrix is byte for byte
// what the code wrote when the hashes were taken.
func TestGoldenOutputs(t *testing.T) {
	got := goldenHashes(t)
	if os.Getenv("WRAPPER_GOLDEN") == "update" {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(want) != len(got) {
		t.Fatalf("%d outputs, %d golden", len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			bad++
			if bad <= 10 {
				t.Errorf("got  %s\nwant %s", got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d outputs differ from %s", bad, len(got), goldenFile)
	}
}
