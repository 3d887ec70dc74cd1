package regcheck

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// Host symbols longer than a record line are no kernel the record can
// register, and are left out: a hostile host names thousands of symbols
// by one long string, and hashing each cost its length (8,000 names of
// 480,000 bytes: 0.4-0.85 s). Names up to the line cap stay.
func TestHostKernelsSkipsOverlongNames(t *testing.T) {
	for _, c := range []struct {
		nameLen int
		want    int
	}{{maxLine, 10}, {maxLine + 10, 0}} {
		obj := hostile.ELFLongSymbols(10, c.nameLen, 1) // names nameLen down to nameLen-9 bytes
		got, err := HostKernels(bytes.NewReader(obj), int64(len(obj)))
		if err != nil || len(got) != c.want {
			t.Errorf("names of up to %d bytes: %d kept, %v; want %d", c.nameLen, len(got), err, c.want)
		}
		for name := range got {
			if strings.Trim(name, "A") != "" {
				t.Errorf("name %.20q... kept", name)
			}
		}
	}
}
