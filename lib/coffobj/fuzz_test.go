package coffobj

import (
	"bytes"
	"io"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// FuzzOpen checks that Open, Section, Sections and SectionReader never
// panic, that sections read back within the input, and that Sections
// agrees with Section.
func FuzzOpen(f *testing.F) {
	text, long := section{".text", []byte{0xc3}}, section{".llvm.offloading", []byte("package")}
	f.Add(object(0x8664, 0, false, []section{text, long}))
	f.Add(object(0x14c, 24, false, []section{long, {"//AAAAAE", []byte("b")}}))
	f.Add(object(0x8664, 0, true, []section{text, long}))
	f.Add(append([]byte{0x64, 0x86, 0xff, 0xff}, make([]byte, 60)...))
	f.Add(hostile.COFFLongNames(40, 8192, 97)) // the robustness review's long names, small
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Open(bytes.NewReader(b), int64(len(b)), "fuzz.obj")
		if err != nil {
			return
		}
		if int64(file.NumSections)*SectionSize > int64(len(b)) {
			t.Fatalf("%d sections in %d bytes", file.NumSections, len(b))
		}
		all, allErr := file.Sections()
		for i := range file.NumSections {
			s, err := file.Section(i)
			if err != nil {
				if allErr == nil {
					t.Fatalf("Sections took what Section(%d) refuses: %v", i, err)
				}
				return
			}
			if allErr == nil && all[i] != s {
				t.Fatalf("Sections()[%d] = %+v, Section(%d) = %+v", i, all[i], i, s)
			}
			r, err := file.SectionReader(s)
			if err != nil {
				continue
			}
			n, err := io.Copy(io.Discard, r)
			if err != nil || s.Offset != 0 && n != s.Size || s.Offset+n > int64(len(b)) {
				t.Fatalf("section %d: read %d of %d bytes at %d: %v", i, n, s.Size, s.Offset, err)
			}
		}
	})
}
