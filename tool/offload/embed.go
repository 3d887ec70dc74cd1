package main

import (
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/embed"
	"github.com/rules-offload/rules_offload/lib/packager"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:  "embed",
		short: "add device images to an ELF object's .llvm.offloading section (clang's -fembed-offload-object, for any compiler)",
		run:   runEmbed,
	})
}

func runEmbed(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "package device images as OffloadBinaries and embed them in a host object",
		"--image=file=F,triple=T,arch=A,kind=K... | --binary=FILE  HOST.o -o OUT.o")
	images := s.List("image", "k=v,...", "an image to package, as llvm-offload-binary --image (repeatable)", false)
	binary := s.String("binary", "file", "an already packaged OffloadBinary file to embed")
	out := s.String("o", "file", "output object")
	help := s.Bool("help", "Display available options")
	if err := s.Parse(args); err != nil || help.On || len(s.Positional) == 0 {
		return usageOr(s, err, help.On, prog, stdout, stderr)
	}
	if err := doEmbed(s.Positional, images.Values, binary.Value(), out.Value()); err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

func doEmbed(hosts, images []string, binary, out string) error {
	switch {
	case len(hosts) != 1:
		return fmt.Errorf("expected one host object, got %d", len(hosts))
	case out == "":
		return fmt.Errorf("no output file: give -o")
	case (len(images) == 0) == (binary == ""):
		return fmt.Errorf("give either --image options or --binary")
	}
	bin, size, closeBin, err := packaged(images, binary)
	if err != nil {
		return err
	}
	defer closeBin()
	f, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := embed.File(f, hosts[0], bin, size); err != nil {
		return err
	}
	return f.Commit()
}

// packaged returns the OffloadBinary bytes: the --binary file, or the
// --image options packaged into an unlinked temporary file.
func packaged(images []string, binary string) (io.ReaderAt, int64, func(), error) {
	if binary != "" {
		f, err := os.Open(binary)
		if err != nil {
			return nil, 0, nil, err
		}
		fi, err := f.Stat()
		if err == nil {
			// Checked here so that the error names this file, not the host.
			if err = embed.Check(f, fi.Size()); err != nil {
				err = fmt.Errorf("%s: %w", binary, err)
			}
		}
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return f, fi.Size(), func() { f.Close() }, nil
	}
	srcs, err := packager.Sources(images)
	if err != nil {
		return nil, 0, nil, err
	}
	closeSrcs, err := packager.OpenSources(srcs, os.Stdin)
	if err != nil {
		return nil, 0, nil, err
	}
	defer closeSrcs()
	tmp, err := container.Unlinked("", "offload-embed-*")
	if err != nil {
		return nil, 0, nil, err
	}
	n, err := packager.Package(tmp, srcs)
	if err != nil {
		tmp.Close()
		return nil, 0, nil, err
	}
	return tmp, n, func() { tmp.Close() }, nil
}
