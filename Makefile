# The two commands README.md promises:
#   make demo   builds the examples and shows what was built
#   make test   runs every test (installs the Debian packages it needs)
GO ?= go
BIN := bin
# Pinned tools, run through the Go module proxy.
GAZELLE := github.com/bazelbuild/bazel-gazelle/cmd/gazelle@v0.45.0
BUILDIFIER := github.com/bazelbuild/buildtools/buildifier@v0.0.0-20240918101019-be1c24cc9a44

.PHONY: all build deps demo test lint gotest bazeltest bzlmodtest bench bench-bazel gazelle fuzz gpu-bundle gpu-check gpu-native-bundle

all: build

build:
	$(GO) build -trimpath -o $(BIN)/offload ./tool/offload
	@for n in clang-offload-bundler clang-offload-packager llvm-offload-binary llvm-offload-wrapper clang-offload-wrapper; do \
		ln -sf offload $(BIN)/$$n; done

deps:
	./scripts/install-deps.sh

demo: deps build
	./scripts/demo.sh

# gofmt, go vet, buildifier and gazelle (BUILD files must be current).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(BUILDIFIER) -mode=check -lint=warn $$(git ls-files '*.bzl' '*.bazel' '*BUILD' '*WORKSPACE')
	$(GO) run $(GAZELLE) -repo_root . -go_prefix github.com/rules-offload/rules_offload -mode=diff

gazelle:
	$(GO) run $(GAZELLE) -repo_root . -go_prefix github.com/rules-offload/rules_offload

# make test installs every oracle first, so a missing one fails its tests
# instead of skipping them with the suite green.
gotest:
	OFFLOAD_REQUIRE_ORACLES=1 $(GO) test -count=1 ./...

# Runs every fuzz target for FUZZTIME each (not part of make test).
FUZZTIME ?= 10s
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

bazeltest: build
	./tests/bazel/run.sh

# The second leg: Bazel 7.7.1 in bzlmod mode, clang-23, CUDA 12.4 and ROCm 6.4
# in a Debian sid chroot that scripts/sid.sh makes (or reuses) under
# SID_ROOT (default /srv/sid); needs root and the Debian mirror.
bzlmodtest:
	./tests/bzlmod/run.sh

test: deps lint gotest bazeltest bzlmodtest

bench: deps build
	./tests/bench/run.sh

# The Bazel-level benchmark: per-target actions against one multi-arch clang
# per source, a remote cache and executor (docs/performance.md).
bench-bazel: deps
	./tests/bench/bazel.sh

# The GPU programs of tests/gpu packed into out/gpu-bundle (tests/gpu/README.md);
# gpu-check runs them: PASSED expected where a GPU is, "no device" elsewhere.
gpu-bundle: deps build
	./tests/gpu/build.sh out/gpu-bundle

gpu-check: gpu-bundle
	@if nvidia-smi -L >/dev/null 2>&1; then out/gpu-bundle/run.sh out/gpu-bundle; \
	else out/gpu-bundle/run.sh --expect=no-device out/gpu-bundle; fi

# What targets = ["native"] runs (nvptx-arch with libLLVM), packed to check on
# a GPU machine that it names the GPU nvidia-smi reports (tests/gpu/README.md).
gpu-native-bundle: deps
	./tests/gpu/native_bundle.sh out/gpu-native
