package bitcode

import (
	"encoding/binary"
	"errors"
	"io"
)

// Top-level block IDs and blob record codes (llvm/Bitcode/LLVMBitCodes.h).
const (
	moduleBlockID         = 8
	identificationBlockID = 13
	strtabBlockID         = 23
	symtabBlockID         = 25

	strtabBlobCode = 1 // STRTAB_BLOB
	symtabBlobCode = 1 // SYMTAB_BLOB
)

// wrapperHeaderSize is the part of the wrapper header LLVM reads: magic,
// version, offset, size (a CPU type word follows).
const wrapperHeaderSize = 16

// contents is what llvm::getBitcodeFileContents finds: the modules, the
// first symbol table blob and the string table that follows it.
type contents struct {
	modules int
	symtab  blobRef
	strtab  blobRef
}

// stream locates the bitstream in r[:size], unwrapping a wrapper header.
func stream(r io.ReaderAt, size int64) (*cursor, error) {
	var head [wrapperHeaderSize]byte
	n, _ := r.ReadAt(head[:min(size, wrapperHeaderSize)], 0)
	if !IsBitcode(head[:n]) {
		return nil, ErrNotBitcode
	}
	if size%4 != 0 {
		return nil, &FormatError{Off: 0, Msg: "file size not a multiple of 4:", Val: size}
	}
	c := &cursor{bitReader: bitReader{r: r, size: size}, width: topLevelWidth}
	if string(head[:4]) == WrapperMagic {
		if n < wrapperHeaderSize {
			return nil, &FormatError{Off: 0, Msg: "truncated wrapper header"}
		}
		off := int64(binary.LittleEndian.Uint32(head[8:]))
		sz := int64(binary.LittleEndian.Uint32(head[12:]))
		if off+sz > size {
			return nil, &FormatError{Off: 8, Msg: "wrapped bitcode past end of file: offset+size", Val: off + sz}
		}
		if sz%4 != 0 {
			// LLVM's word-based reader aligns oddly in a partial last
			// word; clang never writes one, so refuse instead of guessing.
			return nil, &FormatError{Off: 12, Msg: "wrapped bitcode size not a multiple of 4:", Val: sz}
		}
		c.base, c.size = off, sz
	}
	magic, err := c.read(32)
	var fe *FormatError
	if err != nil && !errors.As(err, &fe) {
		return nil, err // I/O error
	}
	if err != nil || magic != uint64(binary.LittleEndian.Uint32([]byte(RawMagic))) {
		return nil, &FormatError{Off: c.base, Msg: "missing bitcode magic 'BC' 0xC0DE"}
	}
	return c, nil
}

// readContents walks the top-level blocks. It ends where fewer than 8
// bytes remain, which is how LLVM tolerates trailing padding.
func readContents(c *cursor) (contents, error) {
	var f contents
	for c.pos/8+8 < uint64(c.size) {
		kind, id, err := c.advance()
		if err != nil {
			return f, err
		}
		if kind == entryRecord {
			// Only unabbreviated records fit the top level's 2-bit IDs.
			if _, err := c.unabbrevRecord(); err != nil {
				return f, err
			}
			continue
		}
		if err := f.block(c, id); err != nil {
			return f, err
		}
	}
	return f, nil
}

// block handles one top-level block whose ID advance just returned.
func (f *contents) block(c *cursor, id uint64) error {
	switch id {
	case identificationBlockID:
		// An identification block must be followed by its module.
		if err := c.skipBlock(); err != nil {
			return err
		}
		p := c.pos
		kind, next, err := c.advance()
		if err != nil {
			return err
		}
		if kind != entrySubBlock || next != moduleBlockID {
			return c.errorf(p, nil, "identification block not followed by a module block")
		}
		fallthrough
	case moduleBlockID:
		if err := c.skipBlock(); err != nil {
			return err
		}
		f.modules++
	case strtabBlockID:
		b, err := blobIn(c, strtabBlobCode)
		if err != nil {
			return err
		}
		// The first string table after the symbol table serves it.
		if f.symtab.size != 0 && f.strtab.size == 0 {
			f.strtab = b
		}
	case symtabBlockID:
		b, err := blobIn(c, symtabBlobCode)
		if err != nil {
			return err
		}
		// Later tables come from binary concatenation and are ignored.
		if f.symtab.size == 0 {
			f.symtab = b
		}
	default:
		return c.skipBlock()
	}
	return nil
}

// blobIn reads the block just entered and returns the blob of its last
// record with the given code (empty if that record has none).
func blobIn(c *cursor, code uint32) (blobRef, error) {
	if err := c.enterBlock(); err != nil {
		return blobRef{}, err
	}
	var found blobRef
	for {
		kind, id, err := c.advance()
		if err != nil {
			return blobRef{}, err
		}
		switch kind {
		case entryEndBlock:
			return found, nil
		case entrySubBlock:
			if err := c.skipBlock(); err != nil {
				return blobRef{}, err
			}
		default:
			got, b, err := c.readRecord(id)
			if err != nil {
				return blobRef{}, err
			}
			if got == code {
				found = b
			}
		}
	}
}
