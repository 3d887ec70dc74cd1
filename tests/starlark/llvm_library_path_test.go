package starlark_test

import (
	"os"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// Whether an LLVM installation's programs need LD_LIBRARY_PATH to load
// their libraries from the repository's lib/ (rules/sdk/llvm.bzl): read
// from each program's dynamic section (objdump -p). A RUNPATH of
// $ORIGIN/../lib finds them wherever bin/ and lib/ are materialized.

// objdump -p of programs on the two machines the rules are tested on, the
// dynamic section's lines.
const (
	// Debian 12, apt.llvm.org's clang-22.
	objdumpClang22 = "Dynamic Section:\n" +
		"  NEEDED               libclang-cpp.so.22.1\n" +
		"  NEEDED               libLLVM.so.22.1\n" +
		"  NEEDED               libstdc++.so.6\n" +
		"  NEEDED               libc.so.6\n" +
		"  RUNPATH              $ORIGIN/../lib\n"
	// Debian sid's own clang-23: no RUNPATH.
	objdumpClang23 = "Dynamic Section:\n" +
		"  NEEDED               libclang-cpp.so.23.1\n" +
		"  NEEDED               libLLVM.so.23.1\n" +
		"  NEEDED               libstdc++.so.6\n" +
		"  NEEDED               libc.so.6\n"
	// Debian sid's lld-23 (RUNPATH, like clang-22).
	objdumpLld23 = "Dynamic Section:\n" +
		"  NEEDED               libLLVM.so.23.1\n" +
		"  NEEDED               libc.so.6\n" +
		"  RUNPATH              $ORIGIN/../lib\n"
	// A program with LLVM linked in statically.
	objdumpStatic = "Dynamic Section:\n" +
		"  NEEDED               libc.so.6\n"
)

func TestLlvmFindsOwnLibraries(t *testing.T) {
	g, err := extensionLoader(new([]repoCall)).load("rules/sdk/llvm.bzl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, objdump string
		want          bool
	}{
		{"clang-22, RUNPATH $ORIGIN/../lib", objdumpClang22, true},
		{"clang-23, no RUNPATH", objdumpClang23, false},
		{"lld-23, RUNPATH $ORIGIN/../lib", objdumpLld23, true},
		{"RPATH among others", strings.Replace(objdumpClang23, "Dynamic Section:\n", "Dynamic Section:\n  RPATH                /opt/x:${ORIGIN}/../lib\n", 1), true},
		// An absolute RUNPATH holds on this machine only.
		{"absolute RUNPATH", strings.Replace(objdumpClang22, "$ORIGIN/../lib", "/usr/lib/llvm-22/lib", 1), false},
		{"static", objdumpStatic, true},
	} {
		v, err := starlark.Call(&starlark.Thread{Name: "test"}, g["_finds_own_libraries"], starlark.Tuple{starlark.String(tc.objdump)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := bool(v.Truth()); got != tc.want {
			t.Errorf("%s: finds its own libraries = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The repository rule on this machine's LLVM: Debian 12's clang-22 (host
// leg) writes no library_path, Debian sid's clang-23 and clang-21 (SID=1)
// do.
func TestMachineLlvmLibraryPath(t *testing.T) {
	want := map[string]bool{"22": false}
	if os.Getenv("SID") != "" {
		want = map[string]bool{"23": true, "21": true}
	}
	for version, wantPath := range want {
		root := "/usr/lib/llvm-" + version
		if _, err := os.Stat(root + "/bin/clang"); err != nil {
			t.Logf("no %s: skipped", root)
			continue
		}
		c := newRepoCtx(t, "offload_llvm", starlark.StringDict{
			"path": starlark.String(root), "version": starlark.String(version),
			"urls": starlark.NewList(nil), "sha256": starlark.String(""),
			"strip_prefix": starlark.String(""), "type": starlark.String(""),
		})
		c.machine = true
		if msg := runRepositoryRule(t, "rules/sdk/llvm.bzl", "_offload_llvm_repository_impl", c); msg != "" {
			t.Fatal(msg)
		}
		llvm := repoBuild(t, c)["llvm"]
		if llvm.rule != "offload_llvm" {
			t.Fatalf("%s: :llvm is %q", root, llvm.rule)
		}
		got := llvm.attrs["library_path"] != nil && bool(llvm.attrs["library_path"].Truth())
		if got != wantPath {
			t.Errorf("%s: library_path = %v, want %v", root, got, wantPath)
		}
		if len(llvm.list("libs")) == 0 {
			t.Errorf("%s: no libs declared", root)
		}
	}
}
