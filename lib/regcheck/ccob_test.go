package regcheck

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// HIP programs built with --offload-compress register their fat binary
// as clang-offload-bundler compresses it (CCOB), which the HIP runtime
// decompresses. The records here are hip_saxpy_rdc.record's with its
// bundle compressed (docs/provenance.md): zstd, version 3, by
// clang-offload-bundler-22; zlib, version 2, by offload's bundler.
var compressedRecords = []string{"testdata/hip_saxpy_rdc_zstd.record", "testdata/hip_saxpy_rdc_zlib.record"}

// Finding: a compressed HIP fat binary was refused ("bundle: missing
// magic"). Its images are now checked as the plain bundle's are: the same
// report, targets named.
func TestCompressedBundleChecked(t *testing.T) {
	ex := examples[1]
	opt := Options{Targets: ex.targets, Host: set(ex.host)}
	plain := check(t, mustRead(t, ex.file), opt)
	for _, file := range compressedRecords {
		rep := check(t, mustRead(t, file), opt)
		if !rep.OK() || len(rep.Summary) != 1 || !strings.Contains(rep.Summary[0], "hip fat binary #0: gfx1030, gfx906, gfx90a:xnack+; 1 kernels") {
			t.Errorf("%s: problems %q, summary %q", file, rep.Problems, rep.Summary)
		}
		if !reflect.DeepEqual(rep, plain) {
			t.Errorf("%s: report %+v, the plain bundle's %+v", file, rep, plain)
		}
	}
}

// A compressed bundle whose kernels lack the registered name fails as the
// plain bundle does, with the same problems.
func TestCompressedBundleLacksName(t *testing.T) {
	rename := func(b []byte) []byte {
		return bytes.Replace(b, []byte("function 0 _Z11SaxpyKernelfPKfPfi\n"), []byte("function 0 _Z11SaxpyKernelfPKdPdi\n"), 1)
	}
	ex := examples[1]
	opt := Options{Targets: ex.targets, Host: set(ex.host)}
	plain := check(t, rename(mustRead(t, ex.file)), opt)
	wantProblems(t, plain, "kernel _Z11SaxpyKernelfPKfPfi of the gfx1030 code object, gfx906 code object, gfx90a:xnack+ code object (hip fat binary #0) is registered by no host code")
	for _, file := range compressedRecords {
		rep := check(t, rename(mustRead(t, file)), opt)
		wantProblems(t, rep, "_Z11SaxpyKernelfPKdPdi is registered by the host half")
		if !reflect.DeepEqual(rep, plain) {
			t.Errorf("%s: report %+v, the plain bundle's %+v", file, rep, plain)
		}
	}
}

// blobOf is the first fat binary of a record written by record (or the
// recorder): the bytes after the first "fatbin" line.
func blobOf(t *testing.T, rec []byte) []byte {
	t.Helper()
	r := mustParse(t, rec)
	b := r.Units[0].Blobs[0]
	return rec[b.Offset : b.Offset+b.Size]
}

// A compressed bundle cut short names the unit, the record and the
// damage; one that decodes to something other than a bundle says so as
// the plain bundle's reader does.
func TestCompressedBundleDamaged(t *testing.T) {
	for _, file := range compressedRecords {
		ccob := blobOf(t, mustRead(t, file))
		cut := record(unit{"hip", [][]byte{ccob[:len(ccob)/2]}, []string{"function _Z11SaxpyKernelfPKfPfi"}})
		_, err := Check(mustParse(t, cut), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "hip fat binary 0, image 0: compressed bundle at offset 0: ") {
			t.Errorf("%s cut short: got %v", file, err)
		}
	}
	notBundle := record(unit{"hip", [][]byte{hostile.CCOBZlib([]byte("not a bundle at all, but long enough"))}, nil})
	_, err := Check(mustParse(t, notBundle), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "hip fat binary 0, image 0: compressed bundle at offset 0: bundle: missing magic") {
		t.Errorf("a CCOB of text: got %v", err)
	}
}

// A compressed bundle that declares 4 GiB (the bundle, then zeros) is
// refused before any of it is decoded; one of 300 MiB is decoded into a
// temporary file and checked, under the caps.
func TestCompressedBundleBudgeted(t *testing.T) {
	plain := blobOf(t, mustRead(t, examples[1].file))
	names := []string{"function _Z11SaxpyKernelfPKfPfi"}
	r := runCapped(t, record(unit{"hip", [][]byte{hostile.CCOB(plain, 4<<30)}, names}))
	want := fmt.Sprintf("decompressed data would exceed %d bytes", 4<<30)
	if r.Code != 1 || !strings.Contains(r.Output, "error: the record's compressed images: ") || !strings.Contains(r.Output, want) {
		t.Errorf("want the 4 GiB refused by the budget; got %v", r)
	}
	big := record(unit{"hip", [][]byte{hostile.CCOBHashed(plain, 300<<20)}, names})
	r = runCapped(t, big)
	if r.Code != 0 || !strings.Contains(r.Output, "hip fat binary #0: gfx1030, gfx906, gfx90a:xnack+; 1 kernels") {
		t.Errorf("want PASSED; got %v", r)
	}
	// Within a smaller budget the same record is refused.
	r = runCapped(t, big, "REGCHECK_MAX=268435456")
	if r.Code != 1 || !strings.Contains(r.Output, "decompressed data would exceed 268435456 bytes") {
		t.Errorf("want the 300 MiB refused by a budget of 256 MiB; got %v", r)
	}
}
