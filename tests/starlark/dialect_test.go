package starlark_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// Bazel 4.2.3's Starlark, which the WORKSPACE leg runs, refuses nested
// functions ("nested functions are not allowed. Move the function to the
// top level.") where go.starlark.net, which runs these tests, takes them;
// lambdas are left out with them.
func TestBazel4Dialect(t *testing.T) {
	files := 0
	err := filepath.WalkDir(filepath.Join(repoRoot, "rules"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".bzl") {
			return err
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := (&syntax.FileOptions{}).Parse(path, src, 0)
		if err != nil {
			return err
		}
		depth := 0
		var walk func(n syntax.Node) bool
		walk = func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.DefStmt:
				if depth > 0 {
					pos, _ := n.Span()
					t.Errorf("%s: nested function %s", pos, n.Name.Name)
				}
				depth++
				for _, s := range n.Body {
					syntax.Walk(s, walk)
				}
				depth--
				return false
			case *syntax.LambdaExpr:
				pos, _ := n.Span()
				t.Errorf("%s: lambda", pos)
			}
			return true
		}
		syntax.Walk(f, walk)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 30 {
		t.Fatalf("read only %d .bzl files", files)
	}
}
