package ccob

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/bundle"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Headers transcribed from clang-offload-bundler-22 output for the 151-byte
// bundle (default settings and COMPRESSED_BUNDLE_FORMAT_VERSION=2; the
// commands are in docs/provenance.md#ccob).
const (
	refHeaderV3 = "43434f42 0300 0100 a500000000000000 9700000000000000 b07ed61e84c137b3"
	refHeaderV2 = "43434f42 0200 0100 9d000000 97000000 b07ed61e84c137b3"
	refHash     = 0xb337c1841ed67eb0
)

// refBundle is the 151-byte uncompressed bundle of docs/provenance.md#binary-bundle.
func refBundle(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906"}
	srcs := []io.Reader{strings.NewReader("HOSTDATA"), strings.NewReader("DEV1")}
	if err := bundle.WriteBinary(&buf, ids, []int64{8, 4}, srcs, 1); err != nil {
		t.Fatal(err)
	}
	if sum := md5.Sum(buf.Bytes()); hex.EncodeToString(sum[:]) != "b07ed61e84c137b389b302dd74313ddc" {
		t.Fatalf("reference bundle md5 %x", sum)
	}
	return buf.Bytes()
}

func TestHashOfReference(t *testing.T) {
	sum := md5.Sum(refBundle(t))
	if got := hashOf(sum[:]); got != refHash {
		t.Errorf("hashOf = %#x, want %#x", got, uint64(refHash))
	}
}

func TestParseHeaderReference(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want Header
	}{
		{"v3", refHeaderV3, Header{Version: 3, Method: MethodZstd, TotalSize: 165, UncompressedSize: 151, Hash: refHash, HeaderSize: 32}},
		{"v2", refHeaderV2, Header{Version: 2, Method: MethodZstd, TotalSize: 157, UncompressedSize: 151, Hash: refHash, HeaderSize: 24}},
		{"v1", "43434f42 0100 0000 97000000 b07ed61e84c137b3", Header{Version: 1, Method: MethodZlib, UncompressedSize: 151, Hash: refHash, HeaderSize: 20}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := unhex(t, tc.hex)
			h, err := ParseHeader(append(bytes.Clone(b), 0x28, 0xb5)) // payload bytes are ignored
			if err != nil {
				t.Fatal(err)
			}
			if h != tc.want {
				t.Errorf("ParseHeader = %+v, want %+v", h, tc.want)
			}
			enc, err := h.AppendBinary(nil)
			if err != nil || !bytes.Equal(enc, b) {
				t.Errorf("AppendBinary = %x, %v; want %x", enc, err, b)
			}
		})
	}
}

func TestParseHeaderErrors(t *testing.T) {
	v3 := unhex(t, refHeaderV3)
	withVersion := func(v byte) []byte { b := bytes.Clone(v3); b[4] = v; return b }
	withMethod := func(m byte) []byte { b := bytes.Clone(v3); b[6] = m; return b }
	tests := []struct {
		name string
		in   []byte
		want error
		text string
	}{
		{"empty", nil, ErrNotCompressed, ""},
		{"seven-bytes", []byte("CCOB\x02\x00\x01"), ErrNotCompressed, ""},
		{"no-magic", []byte("CCOX\x03\x00\x01\x00"), ErrNotCompressed, ""},
		{"v3-short", v3[:31], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"v3-common-only", v3[:8], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"v2-short", unhex(t, refHeaderV2)[:23], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"v1-short", withVersion(1)[:19], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"version0", withVersion(0), ErrUnknownVersion, "Unknown compressed bundle version"},
		{"version4", withVersion(4), ErrUnknownVersion, "Unknown compressed bundle version"},
		{"method2", withMethod(2), ErrUnknownMethod, "Unknown compressing method"},
		{"method-high", append(v3[:7:7], append([]byte{1}, v3[8:]...)...), ErrUnknownMethod, "Unknown compressing method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseHeader(tc.in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.text != "" && err.Error() != tc.text {
				t.Errorf("text %q, want LLVM's %q", err.Error(), tc.text)
			}
		})
	}
	if IsCompressed([]byte("CCOB\x02\x00\x01")) || !IsCompressed([]byte("CCOB\x09\x00\x09\x00")) {
		t.Error("IsCompressed wrong")
	}
}

func TestAppendBinaryErrors(t *testing.T) {
	tests := []struct {
		h    Header
		want error
	}{
		{Header{Version: 2, Method: MethodZstd, UncompressedSize: 1 << 32}, ErrV2UncompressedMax},
		{Header{Version: 2, Method: MethodZstd, TotalSize: 1 << 32}, ErrV2TotalMax},
		{Header{Version: 1, Method: MethodZstd, UncompressedSize: 1 << 32}, ErrOption},
		{Header{Version: 4, Method: MethodZstd}, ErrUnknownVersion},
		{Header{Version: 3, Method: 2}, ErrUnknownMethod},
	}
	for _, tc := range tests {
		if _, err := tc.h.AppendBinary(nil); !errors.Is(err, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.h, err, tc.want)
		}
	}
	if ErrV2UncompressedMax.Error() != "Uncompressed size exceeds version 2 limit" ||
		ErrV2TotalMax.Error() != "Total file size exceeds version 2 limit" {
		t.Error("version 2 messages differ from LLVM's")
	}
}

func TestMethodString(t *testing.T) {
	if MethodZlib.String() != "zlib" || MethodZstd.String() != "zstd" || Method(7).String() != "Method(7)" {
		t.Error("Method.String wrong")
	}
}
