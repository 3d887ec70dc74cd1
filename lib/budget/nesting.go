package budget

import "errors"

// The rule for compressed data inside compressed data, the one inspect,
// extract and convert go by (the bundler, as LLVM's, never decodes past
// the compressed record it reads):
//
//   - A compressed container (a CCOB, a compressed OffloadBinary) found
//     inside compressed data is refused unless nesting is allowed: real
//     tool chains never write that, and each level multiplies what a
//     small input can declare.
//   - The compressed entries of an NVIDIA fat binary are part of its
//     format (nvcc and fatbinary compress PTX by default), not a level of
//     their own: they are decoded wherever the fat binary is, inside a
//     CCOB too. What they inflate to is inside compressed data, as what a
//     container inflates to is.
//   - Either way, everything inflated is charged to the input's one
//     budget, at every level.
//
// The level count lives here, with the budget it goes with: one per
// input, handed to every reader that inflates.

// Layer is a kind of compressed data, as the rule tells them apart.
type Layer int

const (
	// Container is compressed data that can hold any container (CCOB,
	// compressed OffloadBinary): refused inside compressed data.
	Container Layer = iota
	// Entry is a format's own compression of one of its images (NVIDIA
	// fat binary entries): decoded at any level.
	Entry
)

// ErrNested is returned for a compressed container inside compressed
// data, unless nesting is allowed.
var ErrNested = errors.New("compressed data inside compressed data: refused " +
	"(real tool chains do not nest compression; --allow-nested-compression decodes it)")

// AllowNested makes Enter accept compressed containers at any depth.
func (b *Budget) AllowNested() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nested = true
}

// Refuses reports whether a compressed container found now would be
// refused: readers that can tell from a header (compressed
// OffloadBinaries) refuse before they inflate anything.
func (b *Budget) Refuses(l Layer) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refuses(l)
}

func (b *Budget) refuses(l Layer) bool {
	return l == Container && b.depth > 0 && !b.nested
}

// Enter records that the reader is about to decode compressed data of
// layer l, or returns ErrNested if the rule refuses it; Leave undoes a
// successful Enter once the data has been walked.
func (b *Budget) Enter(l Layer) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuses(l) {
		return ErrNested
	}
	b.depth++
	return nil
}

// Layers is how many layers of compressed data the reader is inside
// (Enter's not yet undone by Leave).
func (b *Budget) Layers() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.depth
}

// Leave undoes Enter.
func (b *Budget) Leave() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.depth--
}
