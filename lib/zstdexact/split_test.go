package zstdexact

import "testing"

// TestResolveOffCodes: after a part stored raw, the decoder's repeated
// offsets (dRep) lag the parser's (cRep); a repeated offset whose
// meaning differs becomes the offset the parser meant (offBase = offset
// + 3), one that agrees stays. The recorded frames do not reach this
// (only large real inputs do), so it is checked on its own, against
// ZSTD_seqStore_resolveOffCodes worked by hand.
func TestResolveOffCodes(t *testing.T) {
	dRep, cRep := [3]uint32{1, 4, 8}, [3]uint32{100, 4, 8}
	seqs := []sequence{
		{litLen: 5, offBase: 1}, // rep 1: 1 for the decoder, 100 meant
		{litLen: 0, offBase: 1}, // no literals: rep 2, 1 against 4
		{litLen: 2, offBase: 2}, // rep 2: 100 both
		{litLen: 0, offBase: 3}, // no literals, rep 3: rep 1 less one, 99 both
		{litLen: 1, offBase: 50},
		{litLen: 1, offBase: 3}, // rep 3: 100 both
	}
	resolveOffCodes(&dRep, &cRep, seqs)
	want := []uint32{103, 7, 2, 3, 50, 3}
	for i, q := range seqs {
		if q.offBase != want[i] {
			t.Errorf("sequence %d: offBase %d, want %d", i, q.offBase, want[i])
		}
	}
	if dRep != cRep || dRep != [3]uint32{100, 47, 99} {
		t.Errorf("histories %v (decoder) and %v, want both [100 47 99]", dRep, cRep)
	}
}
