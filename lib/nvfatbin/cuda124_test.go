package nvfatbin

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/cuda124 holds what CUDA 12.4's fatbinary (Debian sid's
// nvidia-cuda-toolkit 12.4.131) wrote for six option sets, over cubins
// and PTX from CUDA 12.4's nvcc (k1.124.*) and over CUDA 13's
// (k1.13in124.*, the inputs of testdata/cuda13): COMMANDS.txt has each
// command line, with paths relative to that folder (docs/provenance.md).

// TestWriteCUDA124 writes each with Release CUDA124: byte for byte
// fatbinary 12.4's.
func TestWriteCUDA124(t *testing.T) {
	if n := writeCommands(t, "testdata/cuda124", CUDA124); n != 12 {
		t.Errorf("%d command lines, want 12", n)
	}
}

// writeCommands writes the fat binary of each fatbinary command line of
// dir's COMMANDS.txt as release r and compares it with fatbinary's, which
// the line names; it returns how many lines it checked.
func writeCommands(t *testing.T, dir string, r Release) int {
	t.Helper()
	cmds, err := os.ReadFile(filepath.Join(dir, "COMMANDS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(cmds)), "\n") {
		opt := WriteOptions{Release: r}
		var images []Image
		var out string
		for _, a := range strings.Fields(line)[1:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "-64":
			case "--create":
				out = v
			case "--image3", "--image":
				parse := ParseImage3
				if k == "--image" {
					parse = ParseImage
				}
				sp, err := parse(v)
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, sp.File))
				if err != nil {
					t.Fatal(err)
				}
				images = append(images, Image{Kind: sp.Kind, Arch: sp.Arch, Accelerated: sp.Accelerated, Data: b, Name: sp.File})
			case "--compress-all":
				opt.CompressAll = true
			case "--compress":
				opt.NoCompress = v == "false"
			case "-g":
				opt.Debug = true
			case "--cmdline":
				opt.PTXASOptions = v
			case "--ident":
				opt.Ident = v
			default:
				t.Fatalf("%q: option %q not known to the test", line, a)
			}
		}
		got, err := Write(images, opt)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: ours (%d bytes) is not fatbinary %s's (%d)", line, len(got), r, len(want))
		}
		n++
	}
	return n
}

// CUDA 12.4's PTX rewriting, read off its output for probe texts: the
// first line goes but its newline, comments keep their "//", and blanks
// after a comment's newline go as after any newline.
func TestMinifyPTXCUDA124(t *testing.T) {
	for in, want := range map[string]string{
		".version 8.4\n//c\n":                     "\n//\n",
		".version 8.4\nx //c\n":                   "\nx //\n",
		".version 8.4\nx//c\n":                    "\nx//\n",
		"//c\n.version 8.4\n":                     "\n.version 8.4\n",
		" //c\n.version 8.4\n":                    "\n.version 8.4\n",
		"\n//c\n.version 8.4\n":                   "\n//\n.version 8.4\n",
		".version 8.4\n\"a//b\"\n":                "\n\"a//b\"\n",
		"x//c\n.version 8.4\n":                    "\n.version 8.4\n",
		"//\n//\n.version 8.4\n":                  "\n//\n.version 8.4\n",
		".version 8.4\n// a\n\t// b\n  x  // c\n": "\n//\n//\nx //\n",
	} {
		if got := string(minifyPTX([]byte(in), true)); got != want+"\x00" {
			t.Errorf("%q: %q, want %q", in, got, want+"\x00")
		}
	}
}
