// Package packager implements what llvm-offload-binary (formerly
// clang-offload-packager) does with OffloadBinary files, with LLVM 22's
// semantics: packaging device images described by --image=key=value,...
// options into one output, and extracting images from offload binaries, ELF
// files and archives.
//
// Packaged output is byte-identical to llvm-offload-binary-22's, including
// the order of string entries, which LLVM takes from a hash table (see
// ImageArgs).
package packager

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/offloadkind"
)

// ErrFileRequired is LLVM's error for an --image without file=. Its text is
// LLVM's, so front ends can print it unchanged.
var ErrFileRequired = errors.New("'file' is a required image arguments")

// Source is one device image to package.
type Source struct {
	// File is the file= value naming the image ("-" is standard input).
	File        string
	OffloadKind offloadkind.Kind
	// Strings are the metadata pairs: every key of the --image value except
	// file and kind, in LLVM's order.
	Strings []offloadbin.KV

	// Data and Size hold the image; the caller sets them (see OpenSources)
	// before calling Package.
	Data io.ReaderAt
	Size int64
}

// Sources turns --image values into the images to package, in command-line
// order; file=a,file=b (or file=a,b... as joined by repetition) gives one
// image per file, all sharing the other keys.
func Sources(images []string) ([]Source, error) {
	var out []Source
	for _, spec := range images {
		args := ParseImageArgs(spec)
		files, ok := args.Get("file")
		if !ok {
			return nil, ErrFileRequired
		}
		var okind offloadkind.Kind
		var kvs []offloadbin.KV
		for _, kv := range args.pairs {
			switch kv.Key {
			case "kind":
				okind = offloadkind.Parse(kv.Value)
			case "file":
			default:
				kvs = append(kvs, kv)
			}
		}
		for _, f := range strings.Split(files, ",") {
			out = append(out, Source{File: f, OffloadKind: okind, Strings: kvs})
		}
	}
	return out, nil
}

// DetectImageKind decides an image's kind as LLVM 22 does: bitcode (by its
// magic, raw or wrapped) regardless of the name, else by the extension of
// name via offloadbin.ParseImageKind. head is the start of the file.
func DetectImageKind(name string, head []byte) offloadbin.ImageKind {
	if isBitcode(head) {
		return offloadbin.ImageBitcode
	}
	ext := llvmExtension(name)
	if ext == "" {
		return offloadbin.ImageNone
	}
	return offloadbin.ParseImageKind(ext[1:])
}

func isBitcode(b []byte) bool {
	s := string(b)
	return strings.HasPrefix(s, "BC\xc0\xde") || strings.HasPrefix(s, "\xde\xc0\x17\x0b")
}

// Package writes one version 1 OffloadBinary per source, back to back, as
// llvm-offload-binary-22 -o does. It returns the number of bytes written.
func Package(w io.Writer, sources []Source) (int64, error) {
	return PackageFormat(w, sources, Format{})
}

// Format is the OffloadBinary format PackageFormat writes.
type Format struct {
	// Version 1 (or 0) is LLVM 22's: one binary per source. Versions 2 and
	// 3 are LLVM main's: one binary holding every source, as its
	// llvm-offload-binary writes it (PR #197456); LLVM 22 cannot read them.
	Version uint32
	// Compression compresses a version 3 binary.
	Compression offloadbin.Compression
}

// PackageFormat is Package for any format version. With no sources it
// writes nothing, whatever the version.
func PackageFormat(w io.Writer, sources []Source, f Format) (int64, error) {
	entries := make([]offloadbin.Entry, len(sources))
	for i, s := range sources {
		var head [4]byte
		n, err := s.Data.ReadAt(head[:min(int64(len(head)), s.Size)], 0)
		if err != nil && err != io.EOF {
			return 0, err
		}
		kind := DetectImageKind(s.File, head[:n])
		// LLVM main also names .spv images, which LLVM 22 does not.
		if f.Version >= 2 && kind == offloadbin.ImageNone && llvmExtension(s.File) == ".spv" {
			kind = offloadbin.ImageSPIRV
		}
		entries[i] = offloadbin.Entry{ImageKind: kind, OffloadKind: s.OffloadKind, Strings: s.Strings,
			Image: io.NewSectionReader(s.Data, 0, s.Size), Size: s.Size}
	}
	if f.Version > 1 {
		if len(entries) == 0 {
			return 0, nil
		}
		return offloadbin.WriteEntries(w, f.Version, entries, f.Compression)
	}
	if f.Compression != offloadbin.NoCompression {
		return 0, errors.New("packager: only format version 3 can be compressed")
	}
	var total int64
	for _, e := range entries {
		m, err := offloadbin.WriteEntries(w, 1, []offloadbin.Entry{e}, offloadbin.NoCompression)
		total += m
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// OpenSources opens every source's file and sets Data and Size; "-" reads
// standard input (stdin), as LLVM does, but into an unlinked temporary
// file (container.Spool), at most budget.DefaultLimit bytes, not into
// memory. The returned function closes the files. On error nothing stays
// open.
func OpenSources(sources []Source, stdin io.Reader) (closeAll func(), err error) {
	var files []*os.File
	closeAll = func() {
		for _, f := range files {
			f.Close()
		}
	}
	for i := range sources {
		s := &sources[i]
		if s.File == "-" {
			src, err := SpoolStdin(stdin)
			if err != nil {
				closeAll()
				return nil, err
			}
			files = append(files, src.R.(*os.File))
			s.Data, s.Size = src.R, src.Size
			continue
		}
		f, err := os.Open(s.File)
		if err == nil {
			files = append(files, f)
			var fi os.FileInfo
			if fi, err = f.Stat(); err == nil && fi.IsDir() {
				err = &os.PathError{Op: "read", Path: s.File, Err: syscall.EISDIR}
			}
			if err == nil {
				s.Data, s.Size = f, fi.Size()
			}
		}
		if err != nil {
			closeAll()
			return nil, err
		}
	}
	return closeAll, nil
}

// llvmExtension is llvm::sys::path::extension: the last '.' and what follows
// in the file name, except for the names "." and "..".
func llvmExtension(path string) string {
	name := llvmFilename(path)
	if name == "." || name == ".." {
		return ""
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

// llvmStem is llvm::sys::path::stem: the file name without its extension.
func llvmStem(path string) string {
	name := llvmFilename(path)
	return name[:len(name)-len(llvmExtension(name))]
}

// llvmFilename is llvm::sys::path::filename for POSIX paths: the last
// component, "." when the path ends in a separator, "/" for the root.
func llvmFilename(path string) string {
	if path == "" {
		return ""
	}
	if strings.HasSuffix(path, "/") {
		if strings.Trim(path, "/") == "" {
			return "/"
		}
		return "."
	}
	return path[strings.LastIndexByte(path, '/')+1:]
}
