package zstdexact

import "math/bits"

// strategy numbers the match finders as libzstd does; the numbers take
// part in its heuristics (minimum literals to compress, minimum gain).
type strategy int

const (
	stratFast strategy = 1 + iota
	stratDfast
	stratGreedy
	stratLazy
	stratLazy2
	stratBtlazy2
	stratBtopt
	stratBtultra
	stratBtultra2
)

// params are libzstd's compression parameters.
type params struct {
	windowLog, chainLog, hashLog, searchLog, minMatch, targetLength uint
	strat                                                           strategy
}

// levelParams are libzstd 1.5.6's parameters per level (rows 1 to 22)
// for four source size classes: over 256 KiB, up to 256 KiB, up to 128
// KiB, up to 16 KiB. Only the strategies this package implements are
// used from it, but the table is whole so that Params reports faithfully.
var levelParams = [4][23]params{
	{{}, // over 256 KiB
		{19, 13, 14, 1, 7, 0, stratFast}, {20, 15, 16, 1, 6, 0, stratFast},
		{21, 16, 17, 1, 5, 0, stratDfast}, {21, 18, 18, 1, 5, 0, stratDfast},
		{21, 18, 19, 3, 5, 2, stratGreedy}, {21, 18, 19, 3, 5, 4, stratLazy},
		{21, 19, 20, 4, 5, 8, stratLazy}, {21, 19, 20, 4, 5, 16, stratLazy2},
		{22, 20, 21, 4, 5, 16, stratLazy2}, {22, 21, 22, 5, 5, 16, stratLazy2},
		{22, 21, 22, 6, 5, 16, stratLazy2}, {22, 22, 23, 6, 5, 32, stratLazy2},
		{22, 22, 22, 4, 5, 32, stratBtlazy2}, {22, 22, 23, 5, 5, 32, stratBtlazy2},
		{22, 23, 23, 6, 5, 32, stratBtlazy2}, {22, 22, 22, 5, 5, 48, stratBtopt},
		{23, 23, 22, 5, 4, 64, stratBtopt}, {23, 23, 22, 6, 3, 64, stratBtultra},
		{23, 24, 22, 7, 3, 256, stratBtultra2}, {25, 25, 23, 7, 3, 256, stratBtultra2},
		{26, 26, 24, 7, 3, 512, stratBtultra2}, {27, 27, 25, 9, 3, 999, stratBtultra2}},
	{{}, // up to 256 KiB
		{18, 13, 14, 1, 6, 0, stratFast}, {18, 14, 14, 1, 5, 0, stratDfast},
		{18, 16, 16, 1, 4, 0, stratDfast}, {18, 16, 17, 3, 5, 2, stratGreedy},
		{18, 17, 18, 5, 5, 2, stratGreedy}, {18, 18, 19, 3, 5, 4, stratLazy},
		{18, 18, 19, 4, 4, 4, stratLazy}, {18, 18, 19, 4, 4, 8, stratLazy2},
		{18, 18, 19, 5, 4, 8, stratLazy2}, {18, 18, 19, 6, 4, 8, stratLazy2},
		{18, 18, 19, 5, 4, 12, stratBtlazy2}, {18, 19, 19, 7, 4, 12, stratBtlazy2},
		{18, 18, 19, 4, 4, 16, stratBtopt}, {18, 18, 19, 4, 3, 32, stratBtopt},
		{18, 18, 19, 6, 3, 128, stratBtopt}, {18, 19, 19, 6, 3, 128, stratBtultra},
		{18, 19, 19, 8, 3, 256, stratBtultra}, {18, 19, 19, 6, 3, 128, stratBtultra2},
		{18, 19, 19, 8, 3, 256, stratBtultra2}, {18, 19, 19, 10, 3, 512, stratBtultra2},
		{18, 19, 19, 12, 3, 512, stratBtultra2}, {18, 19, 19, 13, 3, 999, stratBtultra2}},
	{{}, // up to 128 KiB
		{17, 12, 13, 1, 6, 0, stratFast}, {17, 13, 15, 1, 5, 0, stratFast},
		{17, 15, 16, 2, 5, 0, stratDfast}, {17, 17, 17, 2, 4, 0, stratDfast},
		{17, 16, 17, 3, 4, 2, stratGreedy}, {17, 16, 17, 3, 4, 4, stratLazy},
		{17, 16, 17, 3, 4, 8, stratLazy2}, {17, 16, 17, 4, 4, 8, stratLazy2},
		{17, 16, 17, 5, 4, 8, stratLazy2}, {17, 16, 17, 6, 4, 8, stratLazy2},
		{17, 17, 17, 5, 4, 8, stratBtlazy2}, {17, 18, 17, 7, 4, 12, stratBtlazy2},
		{17, 18, 17, 3, 4, 12, stratBtopt}, {17, 18, 17, 4, 3, 32, stratBtopt},
		{17, 18, 17, 6, 3, 256, stratBtopt}, {17, 18, 17, 6, 3, 128, stratBtultra},
		{17, 18, 17, 8, 3, 256, stratBtultra}, {17, 18, 17, 10, 3, 512, stratBtultra},
		{17, 18, 17, 5, 3, 256, stratBtultra2}, {17, 18, 17, 7, 3, 512, stratBtultra2},
		{17, 18, 17, 9, 3, 512, stratBtultra2}, {17, 18, 17, 11, 3, 999, stratBtultra2}},
	{{}, // up to 16 KiB
		{14, 14, 15, 1, 5, 0, stratFast}, {14, 14, 15, 1, 4, 0, stratFast},
		{14, 14, 15, 2, 4, 0, stratDfast}, {14, 14, 14, 4, 4, 2, stratGreedy},
		{14, 14, 14, 3, 4, 4, stratLazy}, {14, 14, 14, 4, 4, 8, stratLazy2},
		{14, 14, 14, 6, 4, 8, stratLazy2}, {14, 14, 14, 8, 4, 8, stratLazy2},
		{14, 15, 14, 5, 4, 8, stratBtlazy2}, {14, 15, 14, 9, 4, 8, stratBtlazy2},
		{14, 15, 14, 3, 4, 12, stratBtopt}, {14, 15, 14, 4, 3, 24, stratBtopt},
		{14, 15, 14, 5, 3, 32, stratBtultra}, {14, 15, 15, 6, 3, 64, stratBtultra},
		{14, 15, 15, 7, 3, 256, stratBtultra}, {14, 15, 15, 5, 3, 48, stratBtultra2},
		{14, 15, 15, 6, 3, 128, stratBtultra2}, {14, 15, 15, 7, 3, 256, stratBtultra2},
		{14, 15, 15, 8, 3, 256, stratBtultra2}, {14, 15, 15, 8, 3, 512, stratBtultra2},
		{14, 15, 15, 9, 3, 512, stratBtultra2}, {14, 15, 15, 10, 3, 999, stratBtultra2}},
}

// highbit is the index of the highest set bit of v (v > 0).
func highbit(v uint32) uint { return uint(31 - bits.LeadingZeros32(v)) }

// paramsFor returns the parameters libzstd's one-shot compression uses
// at level for a source of size n: the row of the size class, shrunk to
// what the source needs (a window just covering it, hash and chain
// tables no larger than the window asks for).
func paramsFor(level int, n int64) params {
	const kib = 1 << 10
	class := 0
	for _, lim := range []int64{256 * kib, 128 * kib, 16 * kib} {
		if n <= lim {
			class++
		}
	}
	level = min(max(level, 1), 22)
	p := levelParams[class][level]
	if n <= 1<<30 {
		srcLog := uint(6) // the smallest hash table
		if n >= 64 {
			srcLog = highbit(uint32(n-1)) + 1
		}
		p.windowLog = min(p.windowLog, srcLog)
	}
	cycleLog := p.chainLog
	if p.strat >= stratBtlazy2 {
		cycleLog-- // binary trees keep two entries a position
	}
	if p.hashLog > p.windowLog+1 {
		p.hashLog = p.windowLog + 1
	}
	if cycleLog > p.windowLog {
		p.chainLog -= cycleLog - p.windowLog
	}
	p.windowLog = max(p.windowLog, 10) // the least a frame header can say
	if p.rowMatchFinderSupported() {
		// libzstd bounds the hash log as if rows were used (it decides
		// later): 24 bits of row index plus the row's own log.
		rowLog := min(max(p.searchLog, 4), 6)
		p.hashLog = min(p.hashLog, 24+rowLog)
	}
	return p
}

func (p params) rowMatchFinderSupported() bool {
	return p.strat >= stratGreedy && p.strat <= stratLazy2
}

// useRowMatchFinder says whether libzstd, on a CPU with 128-bit SIMD as
// fatbinary's hosts have, uses its row-based match finder rather than
// hash chains: for the lazy strategies when the window exceeds 16 KiB.
func (p params) useRowMatchFinder() bool {
	return p.rowMatchFinderSupported() && p.windowLog > 14
}
