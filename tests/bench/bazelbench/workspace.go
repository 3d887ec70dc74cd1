package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The generated workspace: src/ holds the sources, per_target/ builds them
// with rules_offload (one action per source and target, then the fat
// binary and the host compile), multi_arch/ with one action per source and
// kind that runs clang for every target at once (what rules_cuda, CMake and
// a plain `clang --offload-arch=a --offload-arch=b` do), many/ holds the
// targets of the analysis measurement. targets.bzl, which both ways load,
// is rewritten to add or remove a target.

// workspace describes one generated workspace.
type workspace struct {
	dir     string   // where it is written
	root    string   // the rules_offload checkout
	offload string   // the prebuilt offload binary
	sources int      // S
	nvidia  []string // the NVPTX targets (CUDA sources)
	many    int      // offload targets in many/
}

func (w *workspace) write(name, text string) error {
	path := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// create writes every file of the workspace for the AMD targets amd.
func (w *workspace) create(amd []string) error {
	files := map[string]string{
		"WORKSPACE":              w.workspaceFile(),
		".bazelrc":               bazelrc,
		"BUILD.bazel":            "",
		"src/BUILD.bazel":        `exports_files(glob(["*"]))` + "\n",
		"per_target/BUILD.bazel": perTargetBuild,
		"multi_arch/BUILD.bazel": multiArchBuild,
		"multi_arch.bzl":         multiArchBzl,
		"many/BUILD.bazel":       w.manyBuild(),
	}
	for name, text := range files {
		if err := w.write(name, text); err != nil {
			return err
		}
	}
	for i := 0; i < w.sources; i++ {
		if err := w.resetSource(i); err != nil {
			return err
		}
	}
	return w.setTargets(amd)
}

// resetSource writes source i as generated (both languages).
func (w *workspace) resetSource(i int) error {
	for _, ext := range []string{"hip", "cu"} {
		if err := w.write(fmt.Sprintf("src/k%d.%s", i, ext), source(i)); err != nil {
			return err
		}
	}
	return nil
}

// editSource appends a kernel to source i (both languages).
func (w *workspace) editSource(i int) error {
	for _, ext := range []string{"hip", "cu"} {
		if err := w.write(fmt.Sprintf("src/k%d.%s", i, ext), source(i)+extraKernel(i)); err != nil {
			return err
		}
	}
	return nil
}

// setTargets rewrites targets.bzl.
func (w *workspace) setTargets(amd []string) error {
	return w.write("targets.bzl", fmt.Sprintf("AMD = %s\nNV = %s\nSOURCES = %d\n",
		starlarkList(amd), starlarkList(w.nvidia), w.sources))
}

func starlarkList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func (w *workspace) workspaceFile() string {
	return fmt.Sprintf(`workspace(name = "offload_bench")

local_repository(
    name = "rules_offload",
    path = %q,
)

load("@rules_offload//rules:repositories.bzl", "bazel4_offline_repositories", "rules_offload_dependencies", "rules_offload_toolchains")

bazel4_offline_repositories()

rules_offload_dependencies()

new_local_repository(
    name = "offload_prebuilt",
    build_file_content = 'exports_files(["offload", "clang-offload-bundler"])',
    path = %q,
)

rules_offload_toolchains(offload = "@offload_prebuilt//:offload")
`, w.root, filepath.Dir(w.offload))
}

// manyBuild is many/BUILD.bazel: w.many HIP fat binaries over the sources.
func (w *workspace) manyBuild() string {
	return fmt.Sprintf(`load("@rules_offload//rules:defs.bzl", "offload_bundle")
load("//:targets.bzl", "AMD", "SOURCES")

[
    offload_bundle(
        name = "b%%d" %% i,
        srcs = ["//src:k%%d.hip" %% (i %% SOURCES)],
        kind = "hip",
        targets = AMD,
    )
    for i in range(%d)
]
`, w.many)
}

const bazelrc = `build --spawn_strategy=processwrapper-sandbox
build --incompatible_strict_action_env
build --repo_env=CC=/usr/bin/clang-16
build --symlink_prefix=/
`

const perTargetBuild = `load("@rules_offload//rules:defs.bzl", "cuda_library", "hip_library")
load("//:targets.bzl", "AMD", "NV", "SOURCES")

[
    hip_library(
        name = "hip_%d" % i,
        srcs = ["//src:k%d.hip" % i],
        targets = AMD,
    )
    for i in range(SOURCES)
]

[
    cuda_library(
        name = "cuda_%d" % i,
        srcs = ["//src:k%d.cu" % i],
        targets = NV,
    )
    for i in range(SOURCES)
]
`

const multiArchBuild = `load("//:multi_arch.bzl", "multi_arch_cuda", "multi_arch_hip")
load("//:targets.bzl", "AMD", "NV", "SOURCES")

[multi_arch_hip(i, AMD) for i in range(SOURCES)]

[multi_arch_cuda(i, NV) for i in range(SOURCES)]
`

// multiArchBzl: the baseline. One action per source and kind, clang with
// every target, the same SDKs and flags as the rules' toolchain (and
// offload's clang-offload-bundler, as the rules bundle with offload). HIP runs
// clang twice in that action (device code for every target, then the host
// code embedding it) because ROCm 5's hip.bc must go into device code
// only; CUDA is one clang -c.
const multiArchBzl = `_CLANG = "$(location @offload_llvm//:bin/clang)"

_TOOLS = [
    "@offload_llvm//:bin/clang",
    "@offload_llvm//:llvm",
    "@offload_rocm//:rocm",
    "@offload_cuda//:cuda",
    "@offload_cuda//:bin/ptxas",
    "@offload_cuda//:bin/fatbinary",
    # clang makes the HIP fat binary with clang-offload-bundler, looked for
    # through -B: offload's drop-in (make build links it beside offload).
    "@offload_prebuilt//:clang-offload-bundler",
    "@offload_prebuilt//:offload",
]

_ROCM = "external/offload_rocm"

_HIP = " ".join([
    "-x hip -no-canonical-prefixes -fdebug-compilation-dir=.",
    "-isystem %s/include --rocm-path=%s --hip-path=%s" % (_ROCM, _ROCM, _ROCM),
    "--rocm-device-lib-path=%s/amdgcn/bitcode -mcode-object-version=5" % _ROCM,
])

def _wavefront(t):
    return 32 if t.startswith("gfx10") or t.startswith("gfx11") else 64

def multi_arch_hip(i, targets):
    archs = " ".join(["--offload-arch=%s -Xarch_%s -D__AMDGCN_WAVEFRONT_SIZE=%d" % (t, t, _wavefront(t)) for t in targets])
    native.genrule(
        name = "hip_%d" % i,
        srcs = ["//src:k%d.hip" % i],
        outs = ["hip_%d.o" % i],
        cmd = " ".join([
            _CLANG, _HIP, archs, "-cuid=%d" % i, "--cuda-device-only",
            "-Xclang -mlink-builtin-bitcode -Xclang %s/amdgcn/bitcode/hip.bc" % _ROCM,
            "-B external/offload_prebuilt",
            "-c $< -o $@.hipfb &&",
            # The host half reads warpSize too (64, as the rules define it).
            _CLANG, _HIP, archs, "-cuid=%d" % i, "--cuda-host-only -D__AMDGCN_WAVEFRONT_SIZE=64",
            "-Xclang -fcuda-include-gpubinary -Xclang $@.hipfb -c $< -o $@ && rm $@.hipfb",
        ]),
        tools = _TOOLS,
    )

def multi_arch_cuda(i, targets):
    native.genrule(
        name = "cuda_%d" % i,
        srcs = ["//src:k%d.cu" % i],
        outs = ["cuda_%d.o" % i],
        cmd = " ".join([
            _CLANG, "-x cuda -no-canonical-prefixes -fdebug-compilation-dir=.",
            "-isystem external/offload_cuda/include --cuda-path=external/offload_cuda -Wno-unknown-cuda-version",
            " ".join(["--offload-arch=" + t for t in targets]),
            "-cuid=%d -c $< -o $@" % i,
        ]),
        tools = _TOOLS,
    )
`
