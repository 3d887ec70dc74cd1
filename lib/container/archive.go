package container

import (
	"io"

	"github.com/rules-offload/rules_offload/lib/ar"
)

// Archive walks the members of an ar archive (a Walker). Members are read
// one header at a time, so a malformed member stops the walk after the
// members before it were visited.
func Archive(r io.ReaderAt, size int64, visit Visit) error {
	rd, err := ar.NewReader(r, size)
	if err != nil {
		return err
	}
	for {
		m, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := visit(piece(r, Member, m.Name, m.Offset, m.Size)); err != nil {
			return err
		}
	}
}
