package packager

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/offloadkind"
)

// ErrArchiveNeedsFile is LLVM's error for --archive with an --image that
// has no file=. Its text is LLVM's.
var ErrArchiveNeedsFile = errors.New("Image must have a 'file' argument.")

// Output is one file an extraction writes.
type Output struct {
	// Path is the file to write: the file= value, or a generated name in the
	// working directory.
	Path string
	// Images holds one image, or the members of an archive (Archive true).
	Images  []Found
	Archive bool
}

// Plan is what an extraction writes, in order; a later output replaces an
// earlier one with the same path.
type Plan struct {
	Outputs []Output
	// Warnings are LLVM's warnings, without the program prefix.
	Warnings []string
}

// Match reports whether an image satisfies an --image filter as in LLVM 22:
// every key must match except file; kind compares offload kinds (so an
// unknown kind matches images of kind none), other keys compare strings,
// where a key the image lacks has the value "".
func Match(im *offloadbin.Image, filter ImageArgs) bool {
	for _, kv := range filter.pairs {
		switch kv.Key {
		case "file":
		case "kind":
			if im.OffloadKind != offloadkind.Parse(kv.Value) {
				return false
			}
		default:
			if v, _ := im.Get(kv.Key); v != kv.Value {
				return false
			}
		}
	}
	return true
}

// PlanExtraction decides what llvm-offload-binary-22 <input> --image=...
// [--archive] writes, given the images found in input. As in LLVM 22,
// nothing is extracted without an --image filter. For each filter, in order:
// with archive, the matches go to an archive named by file= (required);
// else with file=, the last match is written there (with a warning if there
// were several); else each match is written to
// <stem of input>-<triple>-<arch>.<n>.<ext>, n counting from 0 per filter.
func PlanExtraction(input string, found []Found, images []string, archive bool) (*Plan, error) {
	p := &Plan{}
	for _, spec := range images {
		filter := ParseImageArgs(spec)
		var matches []Found
		for _, f := range found {
			if Match(&f.Image, filter) {
				matches = append(matches, f)
			}
		}
		if len(matches) == 0 {
			continue
		}
		file, hasFile := filter.Get("file")
		switch {
		case archive:
			if !hasFile {
				return nil, ErrArchiveNeedsFile
			}
			p.Outputs = append(p.Outputs, Output{Path: file, Images: matches, Archive: true})
		case hasFile:
			if len(matches) > 1 {
				p.Warnings = append(p.Warnings, fmt.Sprintf("Multiple inputs match to a single file, '%s'", file))
			}
			p.Outputs = append(p.Outputs, Output{Path: file, Images: matches[len(matches)-1:]})
		default:
			for i, m := range matches {
				p.Outputs = append(p.Outputs, Output{Path: GeneratedName(input, &m.Image, i), Images: []Found{m}})
			}
		}
	}
	return p, nil
}

// GeneratedName is the name LLVM 22 gives the idx-th image extracted for a
// filter without file=: <stem of input>-<triple>-<arch>.<idx>.<ext>, where
// "-<arch>" is present even when arch is empty and ext is empty for kinds
// LLVM 22 does not name.
//
// The triple and arch come from the input file, which may be hostile, so
// path separators in them become '_' and ".." becomes "__": the result is
// always a plain file name in the working directory. So do control
// characters, other unprintable ones and bytes that are not UTF-8: an ESC
// or a newline in a file name forges what a terminal, `ls` or a script
// reading names line by line shows. LLVM uses them verbatim; names only
// differ where LLVM would write outside the directory or such a name.
func GeneratedName(input string, im *offloadbin.Image, idx int) string {
	return llvmStem(input) + "-" + sanitize(im.Triple()) + "-" + sanitize(im.Arch()) +
		"." + strconv.Itoa(idx) + "." + im.ImageKind.Ext()
}

var nameSanitizer = strings.NewReplacer("/", "_", "\\", "_", "..", "__")

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return '_'
		}
		return r
	}, nameSanitizer.Replace(s))
}

// Write writes the plan's outputs in order, each atomically (see package
// atomicfile). Images are read from their inputs as they are written.
func (p *Plan) Write() error {
	for _, o := range p.Outputs {
		if err := o.write(); err != nil {
			return err
		}
	}
	return nil
}

func (o *Output) write() error {
	if !o.Archive {
		return atomicfile.WriteFile(o.Path, o.Images[0].Open())
	}
	members := make([]ar.WriterMember, len(o.Images))
	for i := range o.Images {
		m, err := archiveMember(&o.Images[i])
		if err != nil {
			return err
		}
		members[i] = m
	}
	f, err := atomicfile.Create(o.Path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := ar.WriteArchive(f, members); err != nil {
		return err
	}
	return f.Commit()
}

// archiveMember describes an image as an archive member named after its
// source, as LLVM names members after the buffer identifier. ELF members get
// their symbols listed, as LLVM's symbol table does; bitcode members do not
// (LLVM would list their IR symbols).
func archiveMember(f *Found) (ar.WriterMember, error) {
	m := ar.WriterMember{Name: f.Source, Size: f.Size, Data: f.Open()}
	var head [18]byte
	n, _ := f.Open().ReadAt(head[:], 0)
	if !isELFObject(head[:n]) {
		return m, nil
	}
	ef, err := elfobj.Open(f.Open(), f.Size)
	if err != nil {
		// Not a usable object: LLVM would store it as plain data too.
		return m, nil
	}
	syms, err := ef.ArchiveSymbols()
	if err != nil {
		return m, nil
	}
	m.Object, m.Symbols = true, syms
	return m, nil
}
