package regcheck

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// withEnd returns the record b with the end line the recorder writes last,
// counting its lines; an end line b already has is replaced.
func withEnd(b []byte) []byte {
	body := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		body = b[i+1:]
	}
	n := 0
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			break
		}
		line := string(body[:i])
		if strings.HasPrefix(line, "end ") && i+1 == len(body) {
			b = b[:len(b)-len(body)]
			break
		}
		body = body[i+1:]
		n++
		if f := strings.Fields(line); len(f) == 5 && f[0] == "fatbin" {
			size, err := strconv.Atoi(f[4])
			if err != nil || size+1 > len(body) {
				break
			}
			body = body[size+1:]
		}
	}
	return append(append([]byte(nil), b...), fmt.Sprintf("end %d\n", n)...)
}

// A record the recorder did not finish is refused however it was cut:
// between two units it would look whole. So are records whose end line
// miscounts, is cut short, or has data after it, and version 1 records.
func TestRecordNeedsItsEnd(t *testing.T) {
	good := mustRead(t, examples[0].file)
	if _, err := Parse(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Fatal(err)
	}
	// The end of the first unit's fat binary line and blob: a unit
	// boundary, where the rest of the record is a name of that unit.
	rec := mustParse(t, good)
	blob := rec.Units[0].Blobs[0]
	boundary := blob.Offset + blob.Size + 1
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"cut at a unit boundary": {good[:boundary], "has no end line"},
		"cut after a name":       {good[:bytes.LastIndex(good, []byte("end "))], "has no end line"},
		"end line cut short":     {good[:len(good)-1], "cut short"},
		"end line miscounts":     {append(bytes.Clone(bytes.TrimSuffix(good, []byte("end 3\n"))), "end 2\n"...), `counts "2" lines, the record has 3`},
		"data after the end":     {append(append([]byte(nil), good...), "var 0 x\n"...), "data after the end line"},
		"version 1":              {[]byte("offload-registration-record 1\n"), "version 1"},
	} {
		_, err := Parse(bytes.NewReader(c.b), int64(len(c.b)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", name, err, c.want)
		}
	}
}
