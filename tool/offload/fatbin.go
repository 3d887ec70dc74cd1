package main

import (
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:    "fatbin",
		aliases: []string{"fatbinary"},
		short:   "write an NVIDIA fat binary from cubins and PTX, as fatbinary (CUDA 11.8, 12.4 or 13.0) does, from its command line",
		run:     runFatbin,
	})
}

// fatbinFlags are the fatbinary options that clang's CUDA driver, its
// users (-Xcuda-fatbinary) and the rules pass. Others (--device-c,
// --link, --embedded-fatbin, ...) are refused as unknown.
type fatbinFlags struct {
	create, image, image3, compress, ident, cmdline *cl.Option
	bits64, bits32, compressAll, debug, help        *cl.Option
	compressMode, cudaVersion, cuda                 *cl.Option
}

func newFatbinFlags(s *cl.Set) *fatbinFlags {
	f := &fatbinFlags{
		create:      s.String("create", "file", "the fat binary to write"),
		image:       s.List("image", "profile=sm_NN|compute_NN,file=F", "an image (repeatable); sm_90a, compute_90a: an architecture-specific target (CUDA 12 and later)", false),
		image3:      s.List("image3", "kind=elf|ptx,sm=NN,file=F", "an image, as clang writes it (repeatable); sm=90a: an architecture-specific target (CUDA 12 and later)", false),
		compress:    s.String("compress", "true|false", "compress PTX, and cubins under -g (default true)"),
		compressAll: s.Bool("compress-all", "compress every image"),
		compressMode: s.String("compress-mode", "default|size|speed|balance|none",
			"how CUDA 13's fatbinary compresses (ZSTD, harder ZSTD of every image, LZ4, ZSTD, nothing); needs --cuda-version=13 or later"),
		cudaVersion: s.String("cuda-version", "X.Y",
			"write the bytes of this CUDA release's fatbinary: 11.x as 11.8's, 12.x as 12.4's, 13 and later as 13.0's (default 11.8)"),
		debug:   s.Bool("debug", "mark the images as debug code (-g)"),
		cuda:    s.Bool("cuda", "mark the fat binary as CUDA's (deprecated in fatbinary, which warns)"),
		ident:   s.String("ident", "name", "identifier stored in every image"),
		cmdline: s.String("cmdline", "options", "ptxas options stored in PTX images"),
		bits64:  s.Bool("64", "64-bit images (cubins must be ELF64)"),
		bits32:  s.Bool("32", "32-bit images"),
		help:    s.Bool("help", "Display available options"),
	}
	s.Alias("g", "debug")
	s.Alias("im", "image")
	s.Alias("h", "help")
	return f
}

func runFatbin(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "write an NVIDIA fat binary (fatbinary's bytes: CUDA 11.8's, or --cuda-version's)",
		"[-64] --create=OUT --image3=kind=elf|ptx,sm=NN,file=F... [--cuda-version=X.Y] [--compress=false] [--compress-all] [--compress-mode=M] [-g]")
	f := newFatbinFlags(s)
	err := s.Parse(args)
	switch {
	case err != nil || f.help.On:
	case len(s.Positional) > 0:
		err = fmt.Errorf("unexpected argument %q: images are given with --image3 or --image", s.Positional[0])
	case !f.create.Given():
		err = fmt.Errorf("no output file: give --create=FILE")
	}
	if err != nil || f.help.On {
		return usageOr(s, err, f.help.On, prog, stdout, stderr)
	}
	// fatbinary's own words, on stderr, for a deprecated option it still
	// honours.
	if f.cuda.On {
		fmt.Fprintf(stderr, "%s: warning: option 'cuda' has been deprecated\n", prog)
	}
	specs, opt, err := f.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 2
	}
	if err := writeFatbin(f.create.Value(), specs, opt); err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
		return 1
	}
	return 0
}

// resolve turns the flags into images and options, with fatbinary's
// defaults: compression on, and without -64 entries marked 64-bit whose
// cubins must nevertheless be ELF32.
func (f *fatbinFlags) resolve() ([]nvfatbin.ImageSpec, nvfatbin.WriteOptions, error) {
	opt := nvfatbin.WriteOptions{
		Bits32: f.bits32.On && !f.bits64.On, ELF32: !f.bits64.On,
		Debug: f.debug.On, CompressAll: f.compressAll.On, CUDA: f.cuda.On,
		Ident: f.ident.Value(), PTXASOptions: f.cmdline.Value(),
	}
	if f.cudaVersion.Given() {
		r, err := nvfatbin.ParseRelease(f.cudaVersion.Value())
		if err != nil {
			return nil, opt, fmt.Errorf("--cuda-version=%s: %v", f.cudaVersion.Value(), err)
		}
		opt.Release = r
	}
	if f.compressMode.Given() {
		m, err := nvfatbin.ParseCompressMode(f.compressMode.Value())
		if err != nil {
			return nil, opt, err
		}
		if opt.Release < nvfatbin.CUDA130 {
			return nil, opt, fmt.Errorf("--compress-mode=%s: CUDA %s's fatbinary has no --compress-mode; give --cuda-version=13.0", m, opt.Release)
		}
		opt.CompressMode = m
	}
	switch f.compress.Value() {
	case "", "true":
	case "false":
		opt.NoCompress = true
	default:
		return nil, opt, fmt.Errorf("--compress=%s: want true or false", f.compress.Value())
	}
	// fatbinary drops the --image3 images when --image is given too.
	if len(f.image.Values) > 0 && len(f.image3.Values) > 0 {
		return nil, opt, fmt.Errorf("--image and --image3 together: fatbinary would write only the --image ones; use one form")
	}
	var specs []nvfatbin.ImageSpec
	for _, v := range f.image.Values {
		sp, err := nvfatbin.ParseImage(v)
		if err != nil {
			return nil, opt, err
		}
		specs = append(specs, sp)
	}
	for _, v := range f.image3.Values {
		sp, err := nvfatbin.ParseImage3(v)
		if err != nil {
			return nil, opt, err
		}
		specs = append(specs, sp)
	}
	// An "a" target (sm_90a) needs a release whose fatbinary marks it: a
	// usage error, found before any input is read.
	for _, sp := range specs {
		if err := opt.Release.AcceleratedError(sp.Arch, sp.Accelerated); err != nil {
			return nil, opt, fmt.Errorf("%s: %v", sp.File, err)
		}
	}
	return specs, opt, nil
}

// writeFatbin reads the images and writes the fat binary to out, all or
// nothing. Cubins are read as they are copied out (PTX, which is
// rewritten, is read whole); inputs that are not regular files (a device
// such as /dev/zero, a pipe) are refused, as their size is not known.
func writeFatbin(out string, specs []nvfatbin.ImageSpec, opt nvfatbin.WriteOptions) error {
	images := make([]nvfatbin.Image, len(specs))
	for i, sp := range specs {
		f, size, err := openImage(sp.File)
		if err != nil {
			return err
		}
		defer f.Close()
		images[i] = nvfatbin.Image{Kind: sp.Kind, Arch: sp.Arch, Accelerated: sp.Accelerated, Name: sp.File, R: f, Size: size}
		if sp.Kind == nvfatbin.KindPTX {
			if images[i].Data, err = io.ReadAll(io.NewSectionReader(f, 0, size)); err != nil {
				return err
			}
		}
	}
	w, err := atomicfile.Create(out)
	if err != nil {
		return err
	}
	if err := nvfatbin.WriteTo(w, images, opt); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// openImage opens an input image, which must be a regular file.
func openImage(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", name)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
