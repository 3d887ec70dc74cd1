package fatbin_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestFatbinEdgeCases: command lines at the edges of what fatbinary
// takes give its bytes too: no image at all, PTX of a few bytes (whose
// compressed form is longer than itself), PTX whose last line is a
// comment without a newline (fatbinary reads past its buffer there; see
// docs/nvfatbin.md), and an identifier and ptxas options long enough to
// make an entry header of over 8 KiB, which offload inspect must read
// back. For the comment at the end, fatbinary may crash instead (it does
// for this text): we then require our output to hold the text with a
// newline in place of the comment, as cuobjdump -ptx shows it.
func TestFatbinEdgeCases(t *testing.T) {
	llvmtest.Need(t, oracleTools...)
	dir := t.TempDir()
	tiny := llvmtest.WriteFile(t, dir, "tiny.ptx", []byte(".version 7.8\n"))
	comment := llvmtest.WriteFile(t, dir, "comment.ptx", []byte(".version 7.8\n.target sm_70\n.address_size 64\n// the end"))
	crlf := llvmtest.WriteFile(t, dir, "crlf.ptx", []byte("//\r\n.version 7.8\r\n.target sm_70\r\n\t\t.address_size 64 // x\r\n"))
	long := strings.Repeat("i", 5000)
	for _, c := range []struct {
		name       string
		args       []string
		nvMayCrash bool
	}{
		{"no images", []string{"-64", "--create", out}, false},
		{"tiny PTX", []string{"-64", "--create", out, "--image3=kind=ptx,sm=70,file=" + tiny}, false},
		{"tiny PTX, all compressed", []string{"-64", "--create", out, "--image3=kind=ptx,sm=70,file=" + tiny, "--compress-all"}, false},
		{"comment at the end", []string{"-64", "--create", out, "--image3=kind=ptx,sm=70,file=" + comment}, true},
		{"CRLF PTX", []string{"-64", "--create", out, "--compress=false", "--image3=kind=ptx,sm=70,file=" + crlf}, false},
		{"long strings", []string{"-64", "--create", out, "--ident=" + long, "--cmdline=" + long[:3000],
			"--image3=kind=ptx,sm=70,file=" + tiny, "--image3=kind=ptx,sm=80,file=" + tiny}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.nvMayCrash && crashes(t, dir, c.args) {
				llvmtest.Run(t, dir, offloadBin, append([]string{"fatbin"}, c.args...)...)
				ptx := llvmtest.Run(t, dir, "cuobjdump", "-ptx", out)
				if !strings.HasSuffix(ptx, ".address_size 64\n\n") {
					t.Errorf("cuobjdump -ptx of ours:\n%s", ptx)
				}
				return
			}
			nv, ours := runBoth(t, dir, c.args, false)
			if !bytes.Equal(nv, ours) {
				t.Errorf("ours (%d bytes) differs from fatbinary's (%d): %s", len(ours), len(nv), llvmtest.FirstDiff(ours, nv))
			}
			r := llvmtest.RunResult(t, dir, nil, offloadBin, "inspect", "ours/"+out)
			if r.Code != 0 {
				t.Errorf("offload inspect of our fat binary: %v", r)
			}
		})
	}
}

// crashes reports whether fatbinary is ended by a signal on args.
func crashes(t *testing.T, dir string, args []string) bool {
	r := llvmtest.RunResult(t, dir, nil, "fatbinary", args...)
	t.Logf("fatbinary: %v", r)
	return r.Code == -1
}
