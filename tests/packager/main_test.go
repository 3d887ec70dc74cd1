package packager_test

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// Paths set up once by TestMain.
var (
	offloadBin string // the offload binary
	linkDir    string // holds offload under the packager's LLVM names
)

// The packager names clang drivers look for in -B directories.
var packagerNames = []string{"llvm-offload-binary", "clang-offload-packager"}

// Tools the cross-checks use; a missing one skips the tests that need it.
var oracleTools = []string{llvmtest.Oracle("clang"), llvmtest.Oracle("clang++"), "clang-16", llvmtest.Oracle("llvm-offload-binary"),
	"clang-offload-packager-16", llvmtest.Oracle("llvm-objdump"), llvmtest.Oracle("llvm-objcopy"), "gcc"}

// TestMain builds the offload binary once and links it under the names of
// LLVM's packager; every test runs that binary.
func TestMain(m *testing.M) {
	os.Exit(llvmtest.Main(m, func(dir, bin string) error {
		offloadBin, linkDir = bin, filepath.Join(dir, "B")
		if err := os.Mkdir(linkDir, 0o755); err != nil {
			return err
		}
		for _, n := range packagerNames {
			if err := os.Symlink(offloadBin, filepath.Join(linkDir, n)); err != nil {
				return err
			}
		}
		return nil
	}, oracleTools...))
}

// run runs argv in dir with env added to the environment. TMPDIR points
// into dir so that the tools' temporary files die with the test.
func run(t testing.TB, dir string, env []string, argv ...string) llvmtest.Result {
	t.Helper()
	tmp := filepath.Join(dir, ".tmp")
	os.MkdirAll(tmp, 0o755)
	return llvmtest.RunResult(t, dir, append(append(os.Environ(), "TMPDIR="+tmp), env...), argv[0], argv[1:]...)
}

// mustRun is run that fails the test unless the command exits 0.
func mustRun(t testing.TB, dir string, env []string, argv ...string) llvmtest.Result {
	t.Helper()
	r := run(t, dir, env, argv...)
	if r.Code != 0 {
		t.Fatalf("%q failed:\n%v", argv, r)
	}
	return r
}

// section is what the tests compare of an ELF section.
type section struct {
	Type  elf.SectionType
	Flags elf.SectionFlag
	Align uint64
	Data  []byte
}

// elfSection reads the named section of an ELF file with the standard
// library's reader, independently of our ELF code.
func elfSection(t testing.TB, path, name string) (section, bool) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf cannot read %s: %v", path, err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		return section{}, false
	}
	data, err := s.Data()
	if err != nil {
		t.Fatalf("%s: section %s: %v", path, name, err)
	}
	return section{Type: s.Type, Flags: s.Flags, Align: s.Addralign, Data: data}, true
}

// objdumpImages runs llvm-objdump-22 --offloading and returns its listing
// without the first line, which names the file.
func objdumpImages(t testing.TB, dir, path string) string {
	t.Helper()
	r := mustRun(t, dir, nil, llvmtest.Tool(t, llvmtest.Oracle("llvm-objdump")), "--offloading", path)
	out := r.Stdout
	if i := strings.Index(out, "OFFLOADING IMAGE"); i >= 0 {
		return out[i:]
	}
	return ""
}
