package container

import (
	"errors"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/lib/ccob"
)

// TestNextRecord steps over zero padding to the next record, to the end
// when only zeros follow, and stops at anything else.
func TestNextRecord(t *testing.T) {
	rec := ccob.Magic + "\x03\x00\x01\x00" // magic, version, method
	for _, tc := range []struct {
		name, data string
		off        int64
		want       int64
		trailing   bool
	}{
		{"record follows", "abcd" + rec, 4, 4, false},
		{"after padding", "ab\x00\x00" + rec, 2, 4, false},
		{"only padding", "ab\x00\x00\x00", 2, 5, false},
		{"at the end", "ab", 2, 2, false},
		{"other data", "ab\x00\x00junk", 2, 4, true},
		{"a magic cut short", "ab" + ccob.Magic, 2, 2, true},
	} {
		r := strings.NewReader(tc.data)
		got, err := NextRecord(r, tc.off, int64(len(tc.data)))
		var te *TrailingError
		if got != tc.want || errors.As(err, &te) != tc.trailing || (err != nil && !tc.trailing) {
			t.Errorf("%s: NextRecord = %d, %v; want %d, trailing %v", tc.name, got, err, tc.want, tc.trailing)
		}
		if tc.trailing && te != nil && te.Offset != tc.want {
			t.Errorf("%s: error at offset %d, want %d", tc.name, te.Offset, tc.want)
		}
	}
}
