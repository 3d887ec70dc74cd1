package fatbin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Set up once by TestMain.
var (
	offloadBin string // the offload binary
	linkDir    string // holds offload under the name fatbinary, for clang's -B
)

// The tools the tests use as the oracle and to make their inputs.
var oracleTools = []string{"fatbinary", "cuobjdump", "ptxas", "nvcc", "clang++-22"}

func TestMain(m *testing.M) {
	os.Exit(llvmtest.Main(m, func(dir, bin string) error {
		offloadBin, linkDir = bin, filepath.Join(dir, "B")
		if err := os.Mkdir(linkDir, 0o755); err != nil {
			return err
		}
		return os.Symlink(offloadBin, filepath.Join(linkDir, "fatbinary"))
	}, oracleTools...))
}
