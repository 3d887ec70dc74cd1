package container

import (
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// TestRecognise: each container's head is told apart, text bundles with
// their comment marker; anything else is a payload.
func TestRecognise(t *testing.T) {
	coff, _ := hostile.COFFObject(0x8664, 0, false, nil)
	for _, c := range []struct {
		head    string
		format  Format
		comment string
	}{
		{string(hostile.CCOB([]byte("x"), 0)), FormatCCOB, ""},
		{bundle.Magic + "\x01\x00\x00\x00\x00\x00\x00\x00", FormatBundle, ""},
		{offloadbin.Magic + "\x01\x00\x00\x00", FormatOffloadBinary, ""},
		{"\x50\xed\x55\xba\x01\x00\x10\x00", FormatNVFatbin, ""},
		{string(tinyELF()), FormatELF, ""},
		{ar.Magic, FormatArchive, ""},
		{string(coff), FormatCOFF, ""},
		{"\n// " + bundle.Magic + "__START__ host-x86_64-unknown-linux-gnu-\n", FormatTextBundle, "//"},
		{"\n; " + bundle.Magic + "__START__ host-x86_64-unknown-linux-gnu-\n", FormatTextBundle, ";"},
		{"\n# " + bundle.Magic + "__START__ host-x86_64-unknown-linux-gnu-\n", FormatTextBundle, "#"},
		{"BC\xc0\xde", FormatNone, ""},
		{"", FormatNone, ""},
		{"\n/* " + bundle.Magic + "__START__ x\n", FormatNone, ""},
	} {
		head := []byte(c.head)[:min(64, len(c.head))]
		if f, comment := Recognise(head); f != c.format || comment != c.comment {
			t.Errorf("Recognise(%q) = %d, %q; want %d, %q", head, f, comment, c.format, c.comment)
		}
	}
}
