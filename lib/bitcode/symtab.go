package bitcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Layout of llvm::irsymtab::storage, versions 3 (LLVM 9 through 22) and 4
// (LLVM 23): all fields are little-endian 32-bit words; a Str or Range is
// {Offset, Size}. Version 4 widened Uncommon's CommonSize to 64 bits; the
// header and Symbol, all this package reads, are version 3's.
const (
	// SymtabVersion is the irsymtab format version this package writes in
	// its tests' tables, storage::Header::kCurrentVersion in LLVM 22.
	SymtabVersion = 3
	// maxSymtabVersion is the newest version it reads, LLVM 23's.
	maxSymtabVersion = 4

	hdrVersion        = 0
	hdrProducer       = 4
	hdrModules        = 12
	hdrSymbols        = 28
	hdrTargetTriple   = 44
	hdrSourceFileName = 52
	headerSize        = 76

	symName        = 0
	symIRName      = 8
	symComdatIndex = 16
	symFlags       = 20
	symbolSize     = 24
)

// Flags are storage::Symbol flag bits. The two lowest bits hold the
// visibility (see Symbol.Visibility).
type Flags uint32

// Flag bits, storage::Symbol::FlagBits.
const (
	FlagHasUncommon    Flags = 1 << 2
	FlagUndefined      Flags = 1 << 3
	FlagWeak           Flags = 1 << 4
	FlagCommon         Flags = 1 << 5
	FlagIndirect       Flags = 1 << 6
	FlagUsed           Flags = 1 << 7
	FlagTLS            Flags = 1 << 8
	FlagMayOmit        Flags = 1 << 9
	FlagGlobal         Flags = 1 << 10
	FlagFormatSpecific Flags = 1 << 11
	FlagUnnamedAddr    Flags = 1 << 12
	FlagExecutable     Flags = 1 << 13
)

// Visibility is an IR symbol's visibility (GlobalValue::VisibilityTypes).
type Visibility uint8

// Visibilities.
const (
	VisibilityDefault   Visibility = 0
	VisibilityHidden    Visibility = 1
	VisibilityProtected Visibility = 2
)

func (v Visibility) String() string {
	switch v {
	case VisibilityDefault:
		return "default"
	case VisibilityHidden:
		return "hidden"
	case VisibilityProtected:
		return "protected"
	}
	return fmt.Sprintf("Visibility(%d)", uint8(v))
}

// Symbol is one irsymtab entry.
type Symbol struct {
	Name        string // mangled name, as the archive index and linkers see it
	IRName      string // IR name; empty for symbols of module-level asm
	ComdatIndex int32  // index into the comdat table, or -1
	Flags       Flags
}

// Visibility returns the symbol's visibility bits.
func (s Symbol) Visibility() Visibility { return Visibility(s.Flags & 3) }

// InArchiveIndex reports whether LLVM's archive writer lists the symbol:
// a global definition that is not format-specific (isArchiveSymbol over
// ModuleSymbolTable flags; hidden symbols are listed too).
func (s Symbol) InArchiveIndex() bool {
	return s.Flags&FlagGlobal != 0 && s.Flags&(FlagUndefined|FlagFormatSpecific) == 0
}

// Symtab is the decoded irsymtab of a bitcode file.
type Symtab struct {
	Version        uint32
	Producer       string // LLVM version that wrote the table, e.g. "22.1.8"
	TargetTriple   string
	SourceFileName string
	Modules        int      // modules in the file (and in the table)
	Symbols        []Symbol // every module's symbols, in file order
}

// ReadSymtab reads the irsymtab of the bitcode file r[:size]. It returns
// ErrNotBitcode without a bitcode magic number, an error matching
// ErrNoSymtab for bitcode without a usable table (including a file with no
// modules) and an error matching ErrFormat for malformed input.
func ReadSymtab(r io.ReaderAt, size int64) (*Symtab, error) {
	if size < 0 {
		return nil, ErrNotBitcode
	}
	c, err := stream(r, size)
	if err != nil {
		return nil, err
	}
	f, err := readContents(c)
	if err != nil {
		return nil, err
	}
	return decodeSymtab(r, f)
}

// ArchiveSymbols returns the names LLVM 22's writeArchive puts in the
// archive symbol table for the bitcode member r[:size], in its order:
// global, defined, not format-specific symbols, module-level asm symbols
// included (as llvm-ar lists them; clang-offload-bundler-22 registers no
// targets and crashes on module asm). A file without modules has none.
func ArchiveSymbols(r io.ReaderAt, size int64) ([]string, error) {
	st, err := ReadSymtab(r, size)
	if err != nil {
		if errors.Is(err, errNoModules) {
			return nil, nil
		}
		return nil, err
	}
	var names []string
	for _, s := range st.Symbols {
		if s.InArchiveIndex() {
			names = append(names, s.Name)
		}
	}
	return names, nil
}

// errNoModules tells ArchiveSymbols that LLVM would see an object with no
// symbols, not a missing table.
var errNoModules = fmt.Errorf("%w: file has no modules", ErrNoSymtab)

func decodeSymtab(r io.ReaderAt, f contents) (*Symtab, error) {
	if f.modules == 0 {
		return nil, errNoModules
	}
	if f.symtab.size == 0 {
		return nil, noSymtab("no SYMTAB_BLOCK")
	}
	if f.strtab.size == 0 {
		return nil, noSymtab("no STRTAB_BLOCK after the SYMTAB_BLOCK")
	}
	if f.symtab.size < headerSize {
		return nil, noSymtab("symbol table of %d bytes is shorter than its header", f.symtab.size)
	}
	symtab, err := readBlob(r, f.symtab)
	if err != nil {
		return nil, err
	}
	d := decoder{symtab: symtab, symOff: f.symtab.off, strOff: f.strtab.off}
	if v := d.word(hdrVersion); v < SymtabVersion || v > maxSymtabVersion {
		return nil, noSymtab("irsymtab version %d, want %d to %d", v, SymtabVersion, maxSymtabVersion)
	}
	if n := d.word(hdrModules + 4); uint64(n) != uint64(f.modules) {
		return nil, noSymtab("irsymtab covers %d modules, file has %d", n, f.modules)
	}
	strtab, err := readBlob(r, f.strtab)
	if err != nil {
		return nil, err
	}
	d.strtab = string(strtab) // one copy; names are substrings of it
	return d.decode()
}

// decoder reads storage structures from the symtab blob, bounds-checking
// every offset; LLVM trusts them.
type decoder struct {
	symtab         []byte
	strtab         string
	symOff, strOff int64 // file offsets of the blobs, for errors
}

func (d *decoder) word(at int) uint32 { return binary.LittleEndian.Uint32(d.symtab[at:]) }

// str resolves the Str at symtab offset at.
func (d *decoder) str(at int) (string, error) {
	off, n := uint64(d.word(at)), uint64(d.word(at+4))
	if off+n > uint64(len(d.strtab)) {
		return "", &FormatError{Off: d.symOff + int64(at), Msg: "string past end of string table: offset+size", Val: off + n}
	}
	return d.strtab[off : off+n], nil
}

func (d *decoder) decode() (*Symtab, error) {
	st := &Symtab{Version: d.word(hdrVersion), Modules: int(d.word(hdrModules + 4))}
	for _, s := range []struct {
		at  int
		dst *string
	}{{hdrProducer, &st.Producer}, {hdrTargetTriple, &st.TargetTriple}, {hdrSourceFileName, &st.SourceFileName}} {
		v, err := d.str(s.at)
		if err != nil {
			return nil, err
		}
		*s.dst = v
	}
	off, n := uint64(d.word(hdrSymbols)), uint64(d.word(hdrSymbols+4))
	if off+n*symbolSize > uint64(len(d.symtab)) {
		return nil, &FormatError{Off: d.symOff + hdrSymbols, Msg: "symbols past end of symbol table: count", Val: n}
	}
	st.Symbols = make([]Symbol, n) // bounded by the blob's size
	for i := range st.Symbols {
		if err := d.symbol(int(off)+i*symbolSize, &st.Symbols[i]); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (d *decoder) symbol(at int, s *Symbol) error {
	var err error
	if s.Name, err = d.str(at + symName); err != nil {
		return err
	}
	if s.IRName, err = d.str(at + symIRName); err != nil {
		return err
	}
	s.ComdatIndex = int32(d.word(at + symComdatIndex))
	s.Flags = Flags(d.word(at + symFlags))
	return nil
}

// readChunk bounds each allocation step of readBlob.
const readChunk = 1 << 20

// readBlob reads a blob in chunks, so a reader that is shorter than it
// claims fails before a large buffer is allocated.
func readBlob(r io.ReaderAt, b blobRef) ([]byte, error) {
	var buf []byte
	for int64(len(buf)) < b.size {
		k := int(min(b.size-int64(len(buf)), readChunk))
		at := len(buf)
		buf = slices.Grow(buf, k)[:at+k]
		n, err := r.ReadAt(buf[at:], b.off+int64(at))
		if n < k {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("bitcode: reading blob at offset 0x%x: %w", b.off+int64(at), err)
		}
	}
	return buf, nil
}
