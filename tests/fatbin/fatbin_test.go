package fatbin_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// out stands for the output file in a case's arguments.
const out = "out.fatbin"

// clangCommandLine draws a fatbinary command line of the shape clang-22's
// CUDA driver runs (see `clang++-22 -x cuda --cuda-gpu-arch=sm_70 -c k.cu
// -###`):
//
//	-64 --create OUT [-g] --image3=kind=elf,sm=NN,file=F ... [-Xcuda-fatbinary options]
//
// with one to six random images, cubins before PTX of an arch and archs
// ascending as clang lists them, or in random order; the options clang
// users add (--compress-all, --compress=false, --ident, --cmdline, --cuda); and
// now and then fatbinary's other spellings: --image=profile=..., -im=, --create=,
// --debug, "--compress false", and 32-bit cubins without -64.
func clangCommandLine(rng *rand.Rand, ins []input) []string {
	elf32 := rng.Intn(10) == 0
	var picked []input
	for n := 1 + rng.Intn(6); len(picked) < n; {
		in := ins[rng.Intn(len(ins))]
		if in.kind == "ptx" || in.elf32 == elf32 {
			picked = append(picked, in)
		}
	}
	if rng.Intn(3) != 0 {
		slices.SortStableFunc(picked, func(a, b input) int {
			if a.arch != b.arch {
				return a.arch - b.arch
			}
			return strings.Compare(a.kind, b.kind) // "elf" < "ptx"
		})
	}
	var args []string
	switch {
	case elf32 && rng.Intn(2) == 0:
		args = append(args, "-32")
	case !elf32:
		args = append(args, "-64")
	}
	args = append(args, [][]string{{"--create", out}, {"--create=" + out}, {"-create=" + out}}[rng.Intn(5)%3]...)
	if rng.Intn(4) == 0 {
		args = append(args, []string{"-g", "--debug"}[rng.Intn(2)])
	}
	profile := rng.Intn(4) == 0
	for _, in := range picked {
		image := []string{"--image=", "-im="}[rng.Intn(2)]
		switch {
		case profile && in.kind == "elf":
			args = append(args, fmt.Sprintf("%sprofile=sm_%d,file=%s", image, in.arch, in.file))
		case profile:
			args = append(args, fmt.Sprintf("%sprofile=compute_%d,file=%s", image, in.arch, in.file))
		default:
			args = append(args, fmt.Sprintf("--image3=kind=%s,sm=%d,file=%s", in.kind, in.arch, in.file))
		}
	}
	return append(args, extraOptions(rng)...)
}

// extraOptions are the options a user passes with -Xcuda-fatbinary.
func extraOptions(rng *rand.Rand) []string {
	var args []string
	if rng.Intn(5) == 0 {
		args = append(args, "--compress-all")
	}
	switch rng.Intn(8) {
	case 0:
		args = append(args, "--compress=false")
	case 1:
		args = append(args, "--compress", "false")
	case 2:
		args = append(args, "--compress=true")
	}
	if rng.Intn(5) == 0 {
		args = append(args, "--ident="+[]string{"k.cu", "src/kernels/vector_add.cu", "a b"}[rng.Intn(3)])
	}
	if rng.Intn(8) == 0 {
		args = append(args, "--cuda") // deprecated, still honoured
	}
	if rng.Intn(5) == 0 {
		args = append(args, "--cmdline", []string{"-O3", "--maxrregcount=32 -v", "-g --dont-merge-basicblocks --return-at-end "}[rng.Intn(3)])
	}
	return args
}

// runBoth runs fatbinary and offload fatbin (as `offload fatbin`, or
// through a link named fatbinary) with args, each in its own directory,
// and returns their outputs.
func runBoth(t *testing.T, dir string, args []string, link bool) (nv, ours []byte) {
	t.Helper()
	for _, d := range []string{"nv", "ours"} {
		os.RemoveAll(filepath.Join(dir, d))
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	llvmtest.Run(t, filepath.Join(dir, "nv"), "fatbinary", args...)
	if link {
		llvmtest.Run(t, filepath.Join(dir, "ours"), filepath.Join(linkDir, "fatbinary"), args...)
	} else {
		llvmtest.Run(t, filepath.Join(dir, "ours"), offloadBin, append([]string{"fatbin"}, args...)...)
	}
	return llvmtest.ReadFile(t, filepath.Join(dir, "nv", out)), llvmtest.ReadFile(t, filepath.Join(dir, "ours", out))
}

// cuobjdumpListing is `cuobjdump -all` of one tool's output, with its
// file name taken out.
func cuobjdumpListing(t *testing.T, dir, which string) string {
	s := llvmtest.Run(t, filepath.Join(dir, which), "cuobjdump", "-all", out)
	return strings.ReplaceAll(s, out, "F")
}

// TestFatbinMatchesFatbinary gives 200 random command lines of clang's
// shape to fatbinary and to offload fatbin: the bytes must be equal.
// Should they differ, the listings cuobjdump gives are shown too.
func TestFatbinMatchesFatbinary(t *testing.T) {
	ins := corpus(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(14))
	equal, entries, compressed := 0, 0, 0
	for i := 0; i < 200; i++ {
		args := clangCommandLine(rng, ins)
		nv, ours := runBoth(t, dir, args, i%5 == 0)
		if !bytes.Equal(nv, ours) {
			t.Errorf("case %d: fatbinary %q:\nours (%d bytes) differs from fatbinary's (%d): %s", i, args, len(ours), len(nv), llvmtest.FirstDiff(ours, nv))
			if l, r := cuobjdumpListing(t, dir, "ours"), cuobjdumpListing(t, dir, "nv"); l != r {
				t.Errorf("case %d: and cuobjdump lists them differently:\n%s\nfatbinary's:\n%s", i, l, r)
			}
			continue
		}
		equal++
		listing := cuobjdumpListing(t, dir, "nv")
		entries += strings.Count(listing, "\nFatbin ")
		compressed += strings.Count(listing, "\ncompressed\n")
	}
	t.Logf("%d of 200 command lines: equal bytes; %d entries, %d of them compressed", equal, entries, compressed)
	if entries < 400 || compressed < 100 {
		t.Errorf("the cases reached %d entries, %d compressed: too few to say much", entries, compressed)
	}
}
