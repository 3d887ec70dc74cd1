// Package budget bounds the bytes that decompression may produce while one
// input is read, across every compressed record in it and every level of
// nesting. A per-record limit alone lets a small input expand without
// bound: many records side by side, or compressed data that holds more
// compressed data, each under the limit. One Budget per input, passed to
// every reader that inflates, closes that gap.
//
// Readers reserve a record's declared size before they allocate or write
// anything, so an input whose declarations exceed the budget is refused
// before any work is done.
package budget

import (
	"errors"
	"fmt"
	"sync"
)

// DefaultLimit is the budget New gives for a limit of 0: 4 GiB, the most a
// version 2 compressed bundle can declare, so no single valid record of
// LLVM's formats is refused by default.
const DefaultLimit = 4 << 30

// ErrExceeded is wrapped by every error Reserve returns.
var ErrExceeded = errors.New("decompression budget exceeded")

// ExceededError says which reservation did not fit.
type ExceededError struct {
	Want  uint64 // bytes asked for
	Used  uint64 // bytes already reserved
	Limit uint64
	Hint  string // how to raise the limit (see SetHint); may be empty
}

func (e *ExceededError) Error() string {
	s := fmt.Sprintf("decompressed data would exceed %d bytes for this input "+
		"(%d already inflated, %d more declared)", e.Limit, e.Used, e.Want)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }

// Budget counts inflated bytes against a limit. It is safe for concurrent
// use. A nil *Budget has no limit: readers that are given none fall back to
// their own per-record limits.
type Budget struct {
	mu    sync.Mutex
	limit uint64
	used  uint64
	hint  string
	// depth counts the compressed data being walked, nested allows
	// containers inside it (see nesting.go).
	depth  int
	nested bool
}

// New returns a budget of limit bytes; 0 means DefaultLimit.
func New(limit uint64) *Budget {
	if limit == 0 {
		limit = DefaultLimit
	}
	return &Budget{limit: limit}
}

// SetHint sets the text its errors end with, saying how the user can raise
// the limit: the budget is made by a library, but only the command that
// calls it knows its flags ("raise it with --max-uncompressed-size").
func (b *Budget) SetHint(hint string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hint = hint
}

// Reserve takes n bytes from the budget, or takes nothing and returns an
// *ExceededError if they do not fit.
func (b *Budget) Reserve(n uint64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.check(n); err != nil {
		return err
	}
	b.used += n
	return nil
}

func (b *Budget) check(n uint64) error {
	if n > b.limit-b.used {
		return &ExceededError{Want: n, Used: b.used, Limit: b.limit, Hint: b.hint}
	}
	return nil
}

// Limit is the budget's size; 0 for a nil Budget.
func (b *Budget) Limit() uint64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the number of bytes reserved so far.
func (b *Budget) Used() uint64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Check returns the error Reserve would return for n, without taking
// anything: a reader can refuse a sequence of records whose declared sizes
// together do not fit before it decodes the first, then Reserve each.
func (b *Budget) Check(n uint64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.check(n)
}
