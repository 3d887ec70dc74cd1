package wrapper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// llvm23Sanitize is what LLVM 23's llvm-offload-wrapper adds to the fat
// binary wrapper of CUDA and HIP modules (@.fatbin_wrapper), which 22.1.8's
// and ours do not write.
const llvm23Sanitize = ", no_sanitize_address, no_sanitize_hwaddress"

// asLLVM22 turns llvm-dis text of LLVM 23's wrapper module in dir/file
// into 22.1.8's, which ours follows: with OFFLOAD_LLVM_ORACLE=23 the
// fat binary wrapper must carry llvm23Sanitize (the test fails if it
// does not: the difference is gone), which is dropped; the rest of the
// module is compared as it is.
func asLLVM22(t *testing.T, dir, file string) {
	t.Helper()
	if llvmtest.OracleMajor() < 23 {
		return
	}
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "@.fatbin_wrapper = ") {
			if !strings.Contains(l, llvm23Sanitize) {
				t.Errorf("LLVM %d's fat binary wrapper no longer says %q: %s", llvmtest.OracleMajor(), llvm23Sanitize, l)
			}
			lines[i] = strings.Replace(l, llvm23Sanitize, "", 1)
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
