package bundler_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rules-offload/rules_offload/internal/llvmtest"
)

// TestStrippedHostObject bundles and unbundles host objects that have no
// symbol table (stripped with --strip-all): llvm-objcopy still lays their
// section-name table out again, sorted, so ours must too to write LLVM's
// bytes, in both directions.
func TestStrippedHostObject(t *testing.T) {
	t.Parallel()
	l := llvm(t)
	objcopy := llvmtest.Tool(t, llvmtest.Oracle("llvm-objcopy"))
	dir := t.TempDir()
	llvmtest.WriteFile(t, dir, "dev", []byte("device image"))
	for v := range hostSources {
		host := fmt.Sprintf("host%d.o", v)
		compileHost(t, dir, fmt.Sprintf("full%d.o", v), v)
		llvmtest.Run(t, dir, objcopy, "--strip-all", fmt.Sprintf("full%d.o", v), host)
		targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"
		for _, tl := range []tool{l, ours()} {
			res := run(t, dir, nil, tl, "-type=o", targets, "-input="+host, "-input=dev", "-output="+tl.name+host)
			if res.Code != 0 {
				t.Fatalf("%s bundling %s: %v", tl.name, host, res)
			}
			res = run(t, dir, nil, tl, "-unbundle", "-type=o", "-targets=host-x86_64-unknown-linux-gnu",
				"-input="+l.name+host, "-output="+tl.name+"un"+host)
			if res.Code != 0 {
				t.Fatalf("%s unbundling %s: %v", tl.name, host, res)
			}
		}
		read := func(name string) []byte { return llvmtest.ReadFile(t, filepath.Join(dir, name)) }
		sameBytes(t, "bundled "+host, read(l.name+host), read(ours().name+host))
		sameBytes(t, "unbundled "+host, read(l.name+"un"+host), read(ours().name+"un"+host))
	}
}
