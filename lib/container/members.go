package container

import (
	"errors"
	"io"

	"github.com/rules-offload/rules_offload/lib/ar"
)

// Members walks every member of an ar archive (a Walker), as Archive
// does, except that a member whose name is not a local path is visited
// too: for callers that only label things with member names, as LLVM 22's
// extractOffloadBinaries names the images it finds after their members.
// A thin archive is ar.ErrThin.
func Members(r io.ReaderAt, size int64, visit Visit) error {
	rd, err := ar.NewReader(r, size)
	if err != nil {
		return err
	}
	for {
		m, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, ar.ErrInsecurePath) {
			return err
		}
		if err := visit(piece(r, Member, m.Name, m.Offset, m.Size)); err != nil {
			return err
		}
	}
}

// Members lists the members of the ar archive that the input is (Archive),
// reading their headers under FaultGuard: a mapped input that loses pages
// meanwhile is ErrInputChanged, not a crash. The members before an error
// are returned with it.
func (in *Input) Members() (ms []Piece, err error) {
	defer FaultGuard(&err, func(e error) error { return e })()
	err = Archive(in.R, in.Size, func(p Piece) error {
		ms = append(ms, p)
		return nil
	})
	return ms, err
}
