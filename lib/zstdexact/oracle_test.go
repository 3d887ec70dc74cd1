package zstdexact

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestOracle compares Compress with libzstd itself, run as the program
// named by ZSTDEXACT_ORACLE ("PROG LEVEL IN OUT" writes ZSTD_compress's
// frame of IN to OUT), at ZSTDEXACT_LEVEL (default 5), on the files
// named by ZSTDEXACT_FILES (a glob) and on generated inputs. Without the variable it is skipped: libzstd
// is not a test dependency; the recorded frames of TestRecorded are.
func TestOracle(t *testing.T) {
	oracle := os.Getenv("ZSTDEXACT_ORACLE")
	if oracle == "" {
		t.Skip("ZSTDEXACT_ORACLE not set")
	}
	level := 5
	if l := os.Getenv("ZSTDEXACT_LEVEL"); l != "" {
		fmt.Sscan(l, &level)
	}
	nGen := 150
	if os.Getenv("ZSTDEXACT_FILES_ONLY") != "" {
		nGen = 0
	}
	// ZSTDEXACT_MAX_SIZE bounds the generated inputs' sizes (the
	// optimal strategies are ported for up to 64 KiB).
	maxGen := 300000
	if m := os.Getenv("ZSTDEXACT_MAX_SIZE"); m != "" {
		fmt.Sscan(m, &maxGen)
	}
	var inputs [][]byte
	var names []string
	if g := os.Getenv("ZSTDEXACT_FILES"); g != "" {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, b)
			names = append(names, f)
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < nGen; i++ {
		inputs = append(inputs, genInput(rng, rng.Intn(maxGen)))
		names = append(names, fmt.Sprintf("gen%d", i))
	}
	dir := t.TempDir()
	same, skipped := 0, 0
	for i, in := range inputs {
		if !Supported(level, len(in)) {
			skipped++
			continue
		}
		inF, outF := filepath.Join(dir, "in"), filepath.Join(dir, "out")
		os.WriteFile(inF, in, 0o644)
		if out, err := exec.Command(oracle, fmt.Sprint(level), inF, outF).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", oracle, err, out)
		}
		want, _ := os.ReadFile(outF)
		got, err := Compress(nil, in, level)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got, want) {
			same++
			continue
		}
		d := 0
		for d < len(got) && d < len(want) && got[d] == want[d] {
			d++
		}
		t.Errorf("%s (%d bytes): %d bytes, libzstd's %d, first difference at %d", names[i], len(in), len(got), len(want), d)
		if os.Getenv("ZSTDEXACT_KEEP") != "" {
			os.WriteFile(fmt.Sprintf("/tmp/zstdexact/fail%d.in", i), in, 0o644)
		}
	}
	t.Logf("%d of %d identical, %d skipped", same, len(inputs)-skipped, skipped)
}

// genInput makes text-like input with repeats at varied distances, runs
// of one byte and stretches of noise.
func genInput(rng *rand.Rand, n int) []byte {
	words := []string{"ld.global", ".reg", "%r", "mov.u32", "add", "\n\t", "0x", "{", "}", ";", " ", "ret"}
	var b []byte
	for len(b) < n {
		switch rng.Intn(10) {
		case 0:
			k := rng.Intn(50)
			for j := 0; j < k; j++ {
				b = append(b, byte(rng.Intn(256)))
			}
		case 1:
			c := byte(rng.Intn(256))
			for j := rng.Intn(40); j > 0; j-- {
				b = append(b, c)
			}
		case 2, 3:
			if len(b) > 10 {
				off := 1 + rng.Intn(min(len(b), 5000))
				l := 3 + rng.Intn(60)
				for j := 0; j < l; j++ {
					b = append(b, b[len(b)-off])
				}
			}
		default:
			b = append(b, words[rng.Intn(len(words))]...)
			b = append(b, byte('0'+rng.Intn(10)))
		}
	}
	return b[:n]
}
