package bitcode

import "io"

// Record codes of the strings Describe reads (llvm/Bitcode/LLVMBitCodes.h).
const (
	identStringCode          = 1  // IDENTIFICATION_CODE_STRING
	moduleTripleCode         = 2  // MODULE_CODE_TRIPLE
	moduleSourceFilenameCode = 16 // MODULE_CODE_SOURCE_FILENAME
)

// Module is what a module's header records say about it.
type Module struct {
	Producer       string // the identification block's, e.g. "LLVM22.1.8"; "" without one
	Triple         string // "" without a TRIPLE record
	SourceFilename string
}

// Describe reads the identification blocks and the records at the top of
// each module block of the bitcode file r[:size], skipping every nested
// block (the IR itself is not read), and returns the modules in file order.
// Strings longer than 4 KiB are cut there.
func Describe(r io.ReaderAt, size int64) ([]Module, error) {
	if size < 0 {
		return nil, ErrNotBitcode
	}
	c, err := stream(r, size)
	if err != nil {
		return nil, err
	}
	var mods []Module
	producer := ""
	for c.pos/8+8 < uint64(c.size) {
		kind, id, err := c.advance()
		if err != nil {
			return mods, err
		}
		switch {
		case kind == entryRecord:
			if _, err := c.unabbrevRecord(); err != nil {
				return mods, err
			}
		case id == identificationBlockID:
			strs, err := blockStrings(c, identStringCode)
			if err != nil {
				return mods, err
			}
			producer = strs[identStringCode]
		case id == moduleBlockID:
			strs, err := blockStrings(c, moduleTripleCode, moduleSourceFilenameCode)
			if err != nil {
				return mods, err
			}
			mods = append(mods, Module{Producer: producer, Triple: strs[moduleTripleCode],
				SourceFilename: strs[moduleSourceFilenameCode]})
			producer = ""
		default:
			if err := c.skipBlock(); err != nil {
				return mods, err
			}
		}
	}
	return mods, nil
}

// blockStrings reads the records of the block just entered, skipping its
// sub-blocks, and returns the last string record of each code asked for.
func blockStrings(c *cursor, codes ...uint32) (map[uint32]string, error) {
	if err := c.enterBlock(); err != nil {
		return nil, err
	}
	found := map[uint32]string{}
	for {
		kind, id, err := c.advance()
		if err != nil {
			return nil, err
		}
		switch kind {
		case entryEndBlock:
			return found, nil
		case entrySubBlock:
			if err := c.skipBlock(); err != nil {
				return nil, err
			}
		default:
			var text []byte
			c.text = &text
			code, _, err := c.readRecord(id)
			c.text = nil
			if err != nil {
				return nil, err
			}
			for _, want := range codes {
				if code == want {
					found[code] = string(text)
				}
			}
		}
	}
}
