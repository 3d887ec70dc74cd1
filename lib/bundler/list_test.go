package bundler

import (
	"bytes"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/container"
)

// listAgrees fails t unless listHeaders, on in, either declines having
// printed nothing or prints what the general path prints.
func listAgrees(t *testing.T, fileType string, in []byte) {
	t.Helper()
	cfg := hostileConfig(t, fileType, in, 0)
	src, err := openInput(cfg.Inputs[0], container.InputOptions{TempDir: cfg.TempDir})
	if err != nil {
		t.Fatal(err)
	}
	streamed := listHeaders(cfg, handlerFor(cfg.FileType), &src.Source)
	src.Close()
	got := cfg.Stdout.(*bytes.Buffer).String()
	if !streamed {
		if got != "" {
			t.Fatalf("declined after printing %q", got)
		}
		return
	}
	general := hostileConfig(t, fileType, in, 0)
	general.Verbose = true // takes the general path
	general.Stderr = &bytes.Buffer{}
	err = List(general)
	if want := general.Stdout.(*bytes.Buffer).String(); err != nil || got != want {
		t.Fatalf("listHeaders printed %q, the general path %q (%v)", got, want, err)
	}
}

// FuzzListHeaders: whatever one or two compressed records hold, the
// listing from their decoded prefixes is the general path's.
func FuzzListHeaders(f *testing.F) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906"}
	f.Add(append(hostile.BundleHeader(ids, []int64{0, 3}), "abc"...), []byte(nil))
	f.Add(make([]byte, 64), append(hostile.BundleHeader(ids[1:], []int64{1}), 'x'))
	f.Add([]byte("\x7fELF\x02\x01\x01"), []byte("tiny"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		in := hostile.CCOBZlib(a)
		if len(b) > 0 {
			in = append(in, hostile.CCOBZlib(b)...)
		}
		listAgrees(t, "o", in)
		listAgrees(t, "bc", in)
	})
}

// listHeaders prints what the general path prints, or declines: for each
// input, List with it equals List without it (the general path), except
// that where it declines nothing differs by construction.
func TestListHeadersAgreesWithGeneralPath(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "openmp-amdgcn-amd-amdhsa--gfx90a"}
	body := func(sizes ...int64) []byte {
		h := hostile.BundleHeader(ids[:len(sizes)], sizes)
		n := int64(0)
		for _, s := range sizes {
			n += s
		}
		return append(h, bytes.Repeat([]byte{'x'}, int(n))...)
	}
	one := hostile.CCOBZlib(body(0, 100, 7))
	for _, c := range []struct {
		name    string
		in      []byte
		streams bool // listHeaders lists it
	}{
		{"one record", one, true},
		{"zstd record", hostile.CCOB(body(0, 5), 0), true},
		{"two records and padding", append(append(append([]byte(nil), one...), 0, 0, 0), hostile.CCOBZlib(body(3))...), true},
		{"bundle then data, all decoded", hostile.CCOBZlib(append(body(0, 4), "trailing"...)), true},
		{"bundle then a bundle past the prefix", hostile.CCOBZlib(append(body(0, 1<<20), body(0, 2)...)), false},
		{"not a bundle", hostile.CCOBZlib([]byte("plain bytes, not a bundle at all")), true},
		{"records of zeros", bytes.Repeat(hostile.CCOBZlib(make([]byte, 5000)), 3), true},
		{"shorter than the magic", hostile.CCOBZlib([]byte("tiny")), true},
		{"bundles and a record that is none", append(append([]byte(nil), one...), hostile.CCOBZlib(make([]byte, 100))...), true},
		{"an ELF object", hostile.CCOBZlib(append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...)), false},
		{"garbage after the record", append(append([]byte(nil), one...), "junk"...), false},
		{"entry past the end", hostile.CCOBZlib(hostile.BundleHeader(ids[:1], []int64{50})), false},
	} {
		cfg := hostileConfig(t, "o", c.in, 0)
		src, err := openInput(cfg.Inputs[0], container.InputOptions{TempDir: cfg.TempDir})
		if err != nil {
			t.Fatal(err)
		}
		streamed := listHeaders(cfg, handlerFor(cfg.FileType), &src.Source)
		src.Close()
		got := cfg.Stdout.(*bytes.Buffer).String()
		if streamed != c.streams {
			t.Errorf("%s: listHeaders listed it: %v, want %v", c.name, streamed, c.streams)
		}
		general := hostileConfig(t, "o", c.in, 0)
		general.Verbose = true // takes the general path
		general.Stderr = &bytes.Buffer{}
		err = List(general)
		if want := general.Stdout.(*bytes.Buffer).String(); streamed && (err != nil || got != want) {
			t.Errorf("%s: listHeaders printed %q, the general path %q (%v)", c.name, got, want, err)
		}
		if !streamed && got != "" {
			t.Errorf("%s: declined after printing %q", c.name, got)
		}
	}
}
