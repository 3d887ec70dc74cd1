package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// packagerFixture writes the inputs the CLI cases use.
func packagerFixture(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"a.o":   "AAAA",
		"b.bc":  "BC\xc0\xde-bitcode",
		"c":     "no extension",
		"d.spv": "spirv",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// Each command line runs through llvm-offload-binary-22 and through our
// dispatcher under the same program name, in two directories with the same
// inputs; exit status, stdout, stderr and the files left behind must agree.
func TestPackagerCLIMatchesLLVM(t *testing.T) {
	tool := llvmtest.Tool(t, "llvm-offload-binary-22")
	pkg := []string{"-o", "p.bin", "--image=file=a.o,file=b.bc,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp",
		"--image=file=c,file=d.spv,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"}
	cases := []struct {
		name string
		prog string // program name; "" is llvm-offload-binary-22
		pre  []string
		args []string
	}{
		{name: "no arguments"},
		{name: "help", args: []string{"--help"}},
		{name: "help-hidden", args: []string{"--help-hidden"}},
		{name: "help-list", args: []string{"a", "b", "--help-list"}},
		{name: "-h", args: []string{"-h"}},
		{name: "package", args: pkg},
		{name: "package dash spellings", args: []string{"--o=q.bin", "-image", "file=c,kind=hip,triple=x", "-image=file=a.o"}},
		{name: "last -o wins", args: []string{"-o", "x", "-o", "y", "--image=file=a.o"}},
		{name: "no images", args: []string{"-o", "empty.bin"}},
		{name: "mutually exclusive", args: []string{"-o", "x", "a.o"}},
		{name: "file required", args: []string{"-o", "x", "--image=triple=t"}},
		{name: "missing image", args: []string{"-o", "x", "--image=file=nope.o"}},
		{name: "directory image", args: []string{"-o", "x", "--image=file=sub"}},
		{name: "missing output dir", args: []string{"-o", "nodir/x", "--image=file=a.o"}},
		{name: "too many positionals", args: []string{"a", "b"}},
		{name: "-o needs a value", args: []string{"-o"}},
		{name: "--image needs a value", args: []string{"--image"}},
		{name: "extract by kind", pre: pkg, args: []string{"p.bin", "--image=kind=openmp", "--image=triple=nvptx64-nvidia-cuda"}},
		{name: "extract without filter", pre: pkg, args: []string{"p.bin"}},
		{name: "extract to file warns", pre: pkg, args: []string{"p.bin", "--image=kind=openmp,file=one.o"}},
		{name: "extract archive", pre: pkg, args: []string{"p.bin", "--archive", "--image=kind=cuda,file=lib.a"}},
		// Bitcode members are not given archive symbols (see packager.archiveMember).
		{name: "archive needs file", pre: pkg, args: []string{"p.bin", "--archive", "--image=kind=cuda"}},
		{name: "archive=false", pre: pkg, args: []string{"--archive=false", "p.bin", "--image=kind=cuda"}},
		{name: "missing input", args: []string{"nope.bin", "--image=kind=openmp"}},
		{name: "not an offload file", args: []string{"a.o", "--image=kind=openmp"}},
		{name: "deprecated name", prog: "clang-offload-packager", args: []string{"-o", "z", "--image=file=a.o"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prog := tc.prog
			if prog == "" {
				prog = "llvm-offload-binary-22"
			}
			llvmDir, ourDir := t.TempDir(), t.TempDir()
			packagerFixture(t, llvmDir)
			packagerFixture(t, ourDir)
			// LLVM runs through a link named prog.
			link := filepath.Join(t.TempDir(), prog)
			os.Symlink(tool, link)
			cmd := exec.Command(link, tc.args...)
			cmd.Args[0] = prog // LLVM prints argv[0] as given
			cmd.Dir = llvmDir
			var lo, le bytes.Buffer
			cmd.Stdout, cmd.Stderr = &lo, &le
			if tc.pre != nil {
				llvmtest.Run(t, llvmDir, tool, tc.pre...)
			}
			cmd.Run()
			lrc := cmd.ProcessState.ExitCode()

			t.Chdir(ourDir)
			if tc.pre != nil {
				var o, e bytes.Buffer
				if rc := dispatch(append([]string{"llvm-offload-binary"}, tc.pre...), &o, &e); rc != 0 {
					t.Fatalf("setup: %s", e.String())
				}
			}
			var o, e bytes.Buffer
			rc := dispatch(append([]string{prog}, tc.args...), &o, &e)
			if rc != lrc || o.String() != lo.String() || e.String() != le.String() {
				t.Errorf("rc %d, LLVM %d\nstdout %q\nLLVM   %q\nstderr %q\nLLVM   %q", rc, lrc, o.String(), lo.String(), e.String(), le.String())
			}
			if got, want := snapshot(t, ourDir), snapshot(t, llvmDir); !reflect.DeepEqual(got, want) {
				t.Errorf("files differ:\nours %q\nLLVM %q", got, want)
			}
		})
	}
}
