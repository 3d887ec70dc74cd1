package regcheck

import (
	"bytes"
	"testing"
)

// BenchmarkCheckThrust checks the fixed Thrust program's record (from its
// names fixture: 23 registered kernels, 3 images of 29 kernels).
func BenchmarkCheckThrust(b *testing.B) {
	t := &testing.T{}
	rec, host := namesRecord(t, "testdata/thrust_fixed.names")
	opt := Options{Targets: examples[0].targets, Host: host}
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, err := Parse(bytes.NewReader(rec), int64(len(rec)))
		if err != nil {
			b.Fatal(err)
		}
		if rep, err := Check(r, opt); err != nil || !rep.OK() {
			b.Fatal(err, rep.Problems)
		}
	}
}
