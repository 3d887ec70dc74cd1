package wrapper

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// FuzzSplitPackages feeds hostile packages to the splitter behind
// --offload-binaries: it must not panic, and what it accepts must be whole
// OffloadBinaries inside the input, in order, no more than
// maxPackageImages of them, whose bytes add up to at most the input's.
func FuzzSplitPackages(f *testing.F) {
	one := offloadBinaryVector()
	f.Add(one)
	f.Add(append(append([]byte{}, one...), one...))
	f.Add(append(append([]byte{}, one...), make([]byte, 16)...))
	f.Add(append(append([]byte{}, one...), one[:100]...))
	f.Add(append(append([]byte{}, one...), 1, 0, 0, 0))
	f.Add(one[:8])
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := splitPackages([]Image{memImage(b)})
		if err != nil {
			return
		}
		if len(parts) > maxPackageImages {
			t.Fatalf("%d parts, more than %d", len(parts), maxPackageImages)
		}
		if len(parts) == 1 && parts[0].Size == int64(len(b)) {
			return // the input itself (one binary, or no package): passed on
		}
		var total int64
		for i, p := range parts {
			if p.Size <= 0 || p.Size > int64(len(b)) {
				t.Fatalf("part %d: size %d of a %d-byte input", i, p.Size, len(b))
			}
			total += p.Size
			_, n, err := offloadbin.Read(p.Data, 0, p.Size, offloadbin.RefuseCompressed())
			if err != nil || n != p.Size {
				t.Fatalf("part %d (%d bytes) is not one OffloadBinary: size %d, %v", i, p.Size, n, err)
			}
		}
		if total > int64(len(b)) {
			t.Fatalf("parts hold %d bytes of a %d-byte input", total, len(b))
		}
	})
}

// A package of more binaries than maxPackageImages is refused, and the
// refusal costs memory of the bound's order, not of the input's.
func TestSplitPackagesBounded(t *testing.T) {
	one := offloadBinaryVector()
	pkg := bytes.Repeat(one, maxPackageImages+1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := splitPackages([]Image{memImage(pkg)})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatalf("a package of %d OffloadBinaries accepted", maxPackageImages+1)
	}
	got := after.TotalAlloc - before.TotalAlloc
	if got > 8<<20 {
		t.Errorf("refusing %d bytes allocated %d bytes", len(pkg), got)
	}
	t.Logf("refusing %d binaries (%d bytes) allocated %d bytes", maxPackageImages+1, len(pkg), got)
	parts, err := splitPackages([]Image{memImage(pkg[:len(one)*maxPackageImages])})
	if err != nil || len(parts) != maxPackageImages {
		t.Fatalf("a package of %d: %d parts, %v", maxPackageImages, len(parts), err)
	}
}
