package container

import (
	"bytes"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/nvfatbin"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// Format is a container format the walkers look inside.
type Format int

const (
	FormatNone          Format = iota // a payload: code, data
	FormatCCOB                        // compressed bundles, one or back to back
	FormatBundle                      // a binary offload bundle
	FormatOffloadBinary               // OffloadBinaries, one or back to back
	FormatNVFatbin                    // an NVIDIA fat binary
	FormatELF                         // an ELF file
	FormatArchive                     // an ar archive
	FormatCOFF                        // a COFF object
	FormatTextBundle                  // a text offload bundle
)

// Recognise tells the format of a container from its first 64 bytes (fewer
// for a shorter one); for a text bundle it also returns its comment
// marker. inspect and extract dispatch through it, so both try the formats
// in one order.
func Recognise(head []byte) (Format, string) {
	switch {
	case ccob.IsCompressed(head):
		return FormatCCOB, ""
	case bundle.IsBinary(head):
		return FormatBundle, ""
	case offloadbin.IsOffloadBinary(head):
		return FormatOffloadBinary, ""
	case nvfatbin.IsFatbin(head):
		return FormatNVFatbin, ""
	case elfobj.IsELF(head):
		return FormatELF, ""
	case bytes.HasPrefix(head, []byte(ar.Magic)):
		return FormatArchive, ""
	case coffobj.IsObjectWithMachine(head):
		return FormatCOFF, ""
	}
	for _, c := range []string{"//", ";", "#"} {
		if bytes.HasPrefix(head, []byte("\n"+c+" "+bundle.Magic+"__START__ ")) {
			return FormatTextBundle, c
		}
	}
	return FormatNone, ""
}
