package container

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// OffloadBinaries walks the images of the OffloadBinaries (one, or several
// back to back) in the size bytes of r as Image pieces named "image N",
// with Image set; a compressed binary's images read from its inflated
// copy, spilled to files from spill when large. Every binary is charged
// to b before it is inflated, and where b refuses another compressed
// layer (budget.Layer) a compressed binary is refused from its header:
// the error wraps budget.ErrNested. All binaries are parsed before the
// first image is visited.
func OffloadBinaries(r io.ReaderAt, size int64, b *budget.Budget, spill func() (*os.File, error), visit Visit) error {
	opts := []offloadbin.Option{offloadbin.WithBudget(b), offloadbin.WithSpill(spill)}
	if b.Refuses(budget.Container) {
		opts = append(opts, offloadbin.RefuseCompressed()) // found before inflating
	}
	ims, err := offloadbin.ReadAll(r, size, opts...)
	if errors.Is(err, offloadbin.ErrCompressed) {
		return fmt.Errorf("%w: %v", budget.ErrNested, err)
	}
	if err != nil {
		return err
	}
	for i := range ims {
		im := &ims[i]
		p := Piece{Kind: Image, Name: fmt.Sprintf("image %d", i), Offset: im.Offset, Size: im.Size, Data: im.Open(), Image: im}
		if err := visit(p); err != nil {
			return err
		}
	}
	return nil
}
