package ccob

import (
	"bytes"
	"testing"
)

func TestSkipPadding(t *testing.T) {
	data := make([]byte, 100<<10)
	data[70000] = 'C'
	cases := []struct {
		data      []byte
		off, want int64
	}{
		{data, 0, 70000},
		{data, 70000, 70000},
		{data, 70001, int64(len(data))},
		{nil, 0, 0},
		{[]byte("CCOB"), 0, 0},
	}
	for _, c := range cases {
		got, err := SkipPadding(bytes.NewReader(c.data), c.off, int64(len(c.data)))
		if err != nil || got != c.want {
			t.Errorf("SkipPadding(len %d, off %d) = %d, %v; want %d", len(c.data), c.off, got, err, c.want)
		}
	}
}
