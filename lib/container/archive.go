package container

import (
	"io"
	"path/filepath"

	"github.com/rules-offload/rules_offload/lib/ar"
)

// Archive walks the members of an ar archive (a Walker). Members are read
// one header at a time, so a malformed member stops the walk after the
// members before it were visited; so does a member whose name is not a
// local path, with ar.ErrInsecurePath (Members visits those too).
func Archive(r io.ReaderAt, size int64, visit Visit) error {
	return Members(r, size, func(p Piece) error {
		if !filepath.IsLocal(p.Name) {
			return ar.ErrInsecurePath
		}
		return visit(p)
	})
}
