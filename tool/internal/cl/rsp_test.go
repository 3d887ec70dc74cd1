package cl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exponentialRsp writes levels response files of 10 references each to
// the next (the last holds one argument): at most 50 bytes a file, 10^levels
// arguments once expanded (the review's 1.7 KB files: 10^8 arguments, 2.35
// GB). It returns the first file's name.
func exponentialRsp(t testing.TB, dir string, levels int, last string) string {
	t.Helper()
	for i := 0; i < levels; i++ {
		body := strings.Repeat(fmt.Sprintf("@%s ", filepath.Join(dir, fmt.Sprint(i+1))), 10)
		if i == levels-1 {
			body = strings.Repeat(last+" ", 10)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "@" + filepath.Join(dir, "0")
}

// Response files that expand past the limits are refused quickly, whether
// they make arguments or, empty, only make files to read.
func TestResponseFileExpansionBounded(t *testing.T) {
	for _, c := range []struct {
		name, last string
		levels     int
	}{{"arguments", "x", 7}, {"arguments of 1 KiB", strings.Repeat("y", 1024), 5}, {"empty files", "@" + os.DevNull, 8}} {
		dir := t.TempDir()
		start := time.Now()
		_, err := ExpandResponseFiles([]string{exponentialRsp(t, dir, c.levels, c.last)})
		if err == nil || !strings.Contains(err.Error(), "response files expand to more than 1048576 arguments or 67108864 bytes") {
			t.Errorf("%s: error %v, want the expansion refused", c.name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: refused after %v", c.name, d)
		}
	}
	// Right at the limit it still expands.
	dir := t.TempDir()
	args, err := ExpandResponseFiles([]string{exponentialRsp(t, dir, 6, "x")})
	if err != nil || len(args) != 1000000 {
		t.Errorf("10^6 arguments: %d, %v", len(args), err)
	}
}

// A cycle is LLVM's error, naming the file on the stack as an absolute
// path, whichever name reached it.
func TestResponseFileCycleWordedAsLLVM(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.rsp"), filepath.Join(dir, "b.rsp")
	os.WriteFile(a, []byte("x @"+b), 0o644)
	os.WriteFile(b, []byte("y @"+a), 0o644)
	_, err := ExpandResponseFiles([]string{"@" + a})
	if err == nil || err.Error() != "recursive expansion of: '"+a+"'" {
		t.Errorf("error %v", err)
	}
}
