# The two commands README.md promises:
#   make demo   builds the examples and shows what was built
#   make test   runs every test (installs the Debian packages it needs)
GO ?= go
BIN := bin

.PHONY: all build deps demo test vet fmtcheck

all: build

build:
	$(GO) build -trimpath -o $(BIN)/offload ./tool/offload
	@for n in clang-offload-bundler clang-offload-packager llvm-offload-binary llvm-offload-wrapper clang-offload-wrapper; do \
		ln -sf offload $(BIN)/$$n; done

deps:
	./scripts/install-deps.sh

demo: deps build
	./scripts/demo.sh

vet:
	$(GO) vet ./...

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test: deps fmtcheck vet
	$(GO) test -count=1 ./...
