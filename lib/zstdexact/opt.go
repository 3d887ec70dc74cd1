package zstdexact

// libzstd's optimal parser (ZSTD_compressBlock_opt_generic, no
// dictionary, no long-distance matches): from each position where a
// match starts, it prices every way of reaching the positions ahead
// (a literal more, or each match found there, at each of its lengths)
// with costs in 1/256 bits taken from the statistics of what was
// chosen so far, and keeps the cheapest path. optLevel 0 is btopt
// (costs in whole bits, early exits), 2 btultra and btultra2
// (fractional bits). btultra2 parses its first block twice, the first
// pass only to learn the statistics.

const (
	bitCostMultiplier = 1 << 8 // prices are in 1/256 bits
	litFreqAdd        = 2      // a literal counts double, so its statistics adapt faster
	predefThreshold   = 8      // up to this block size, prices come from fixed guesses
	blockSizeLimit    = 128 << 10
)

// optPriceType says where prices come from.
type optPriceType int

const (
	priceDynamic optPriceType = iota // the statistics gathered
	pricePredef                      // fixed guesses, for tiny blocks
)

// optState holds the parser's statistics and work tables for a frame.
type optState struct {
	litFreq                                                  [256]uint32
	litLengthFreq                                            [maxLL + 1]uint32
	matchLengthFreq                                          [maxML + 1]uint32
	offCodeFreq                                              [maxOff + 1]uint32
	litSum, litLengthSum, matchLengthSum, offCodeSum         uint32
	litSumBase, litLengthSumBase, matchLengthSumBase, offSum uint32 // base prices
	priceType                                                optPriceType
	opt                                                      []optimal
	matches                                                  []btMatch
}

// optimal is one position of the price table: the cheapest way found to
// reach it, as a match (off, mlen) followed by litlen literals, with the
// repeated offsets after it.
type optimal struct {
	price             int
	off, mlen, litlen uint32
	rep               [3]uint32
}

func newOptState() *optState {
	return &optState{opt: make([]optimal, optSize), matches: make([]btMatch, optSize)}
}

// bitWeight is the cost of a statistic in whole bits (ZSTD_bitWeight).
func bitWeight(stat uint32) uint32 { return uint32(highbit(stat+1)) * bitCostMultiplier }

// fracWeight is the cost of a statistic with a linear interpolation of
// the fraction of a bit (ZSTD_fracWeight).
func fracWeight(raw uint32) uint32 {
	stat := raw + 1
	hb := highbit(stat)
	return uint32(hb)*bitCostMultiplier + (stat<<8)>>hb
}

func weight(stat uint32, optLevel int) uint32 {
	if optLevel > 0 {
		return fracWeight(stat)
	}
	return bitWeight(stat)
}

func (o *optState) setBasePrices(optLevel int) {
	o.litSumBase = weight(o.litSum, optLevel)
	o.litLengthSumBase = weight(o.litLengthSum, optLevel)
	o.matchLengthSumBase = weight(o.matchLengthSum, optLevel)
	o.offSum = weight(o.offCodeSum, optLevel)
}

func sumU32(t []uint32) uint32 {
	s := uint32(0)
	for _, v := range t {
		s += v
	}
	return s
}

// downscaleStats divides the statistics by 1<<shift, keeping at least 1
// where base1 is set or the count was not 0, and returns their sum.
func downscaleStats(t []uint32, shift uint, base1 bool) uint32 {
	sum := uint32(0)
	for i, v := range t {
		b := uint32(1)
		if !base1 && v == 0 {
			b = 0
		}
		t[i] = b + v>>shift
		sum += t[i]
	}
	return sum
}

// scaleStats shrinks statistics whose sum exceeds 1<<logTarget by a
// power of two, and returns their sum.
func scaleStats(t []uint32, logTarget uint) uint32 {
	prev := sumU32(t)
	factor := prev >> logTarget
	if factor <= 1 {
		return prev
	}
	return downscaleStats(t, highbit(factor), true)
}

var baseLLFreqs = [maxLL + 1]uint32{4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}

var baseOFFreqs = [maxOff + 1]uint32{6, 2, 1, 1, 2, 3, 4, 4, 4, 3, 2, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}

// rescaleFreqs starts the statistics of a block (ZSTD_rescaleFreqs): on
// the frame's first, the literals' from the block itself and guesses for
// the rest; on later ones, those gathered so far, scaled down.
func (o *optState) rescaleFreqs(block []byte, optLevel int) {
	o.priceType = priceDynamic
	if o.litLengthSum == 0 {
		if len(block) <= predefThreshold {
			o.priceType = pricePredef
		}
		clear(o.litFreq[:])
		for _, b := range block {
			o.litFreq[b]++
		}
		o.litSum = downscaleStats(o.litFreq[:], 8, false)
		o.litLengthFreq = baseLLFreqs
		o.litLengthSum = sumU32(baseLLFreqs[:])
		for i := range o.matchLengthFreq {
			o.matchLengthFreq[i] = 1
		}
		o.matchLengthSum = maxML + 1
		o.offCodeFreq = baseOFFreqs
		o.offCodeSum = sumU32(baseOFFreqs[:])
	} else {
		o.litSum = scaleStats(o.litFreq[:], 12)
		o.litLengthSum = scaleStats(o.litLengthFreq[:], 11)
		o.matchLengthSum = scaleStats(o.matchLengthFreq[:], 11)
		o.offCodeSum = scaleStats(o.offCodeFreq[:], 11)
	}
	o.setBasePrices(optLevel)
}

// litPrice is the price of one literal byte.
func (o *optState) litPrice(b byte, optLevel int) int {
	if o.priceType == pricePredef {
		return 6 * bitCostMultiplier
	}
	maxP := o.litSumBase - bitCostMultiplier // a literal costs at least a bit
	p := min(weight(o.litFreq[b], optLevel), maxP)
	return int(o.litSumBase - p)
}

// litLengthPrice is the price of the literal length code of n.
func (o *optState) litLengthPrice(n uint32, optLevel int) int {
	if o.priceType == pricePredef {
		return int(weight(n, optLevel))
	}
	if n == blockSizeLimit {
		// Not representable: a block of literals only; a bit more than
		// one less.
		return bitCostMultiplier + o.litLengthPrice(blockSizeLimit-1, optLevel)
	}
	c := llCode(n)
	return int(uint32(llBits[c])*bitCostMultiplier + o.litLengthSumBase - weight(o.litLengthFreq[c], optLevel))
}

func (o *optState) llIncPrice(n uint32, optLevel int) int {
	return o.litLengthPrice(n, optLevel) - o.litLengthPrice(n-1, optLevel)
}

// matchPrice is the price of a match's offset and length codes.
func (o *optState) matchPrice(offBase, matchLength uint32, optLevel int) int {
	offCode := uint32(highbit(offBase))
	mlBase := matchLength - 3
	if o.priceType == pricePredef {
		return int(weight(mlBase, optLevel) + (16+offCode)*bitCostMultiplier)
	}
	price := offCode*bitCostMultiplier + o.offSum - weight(o.offCodeFreq[offCode], optLevel)
	if optLevel < 2 && offCode >= 20 {
		price += (offCode - 19) * 2 * bitCostMultiplier // far offsets decode slower
	}
	c := mlCode(mlBase)
	price += uint32(mlBits[c])*bitCostMultiplier + o.matchLengthSumBase - weight(o.matchLengthFreq[c], optLevel)
	price += bitCostMultiplier / 5 // fewer sequences decode faster
	return int(price)
}

func (o *optState) updateStats(lits []byte, offBase, matchLength uint32) {
	for _, b := range lits {
		o.litFreq[b] += litFreqAdd
	}
	o.litSum += uint32(len(lits)) * litFreqAdd
	o.litLengthFreq[llCode(uint32(len(lits)))]++
	o.litLengthSum++
	o.offCodeFreq[highbit(offBase)]++
	o.offCodeSum++
	o.matchLengthFreq[mlCode(matchLength-3)]++
	o.matchLengthSum++
}

// newRep is the repeated offsets after a match of offBase, following
// ll0 (no literals before it) or not (ZSTD_updateRep).
func newRep(rep [3]uint32, offBase uint32, ll0 bool) [3]uint32 {
	if offBase > 3 {
		return [3]uint32{offBase - 3, rep[0], rep[1]}
	}
	repCode := offBase - 1
	if ll0 {
		repCode++
	}
	if repCode == 0 {
		return rep
	}
	cur := rep[0] - 1
	if repCode < 3 {
		cur = rep[repCode]
	}
	if repCode >= 2 {
		rep[2] = rep[1]
	}
	rep[1] = rep[0]
	rep[0] = cur
	return rep
}

// compressOpt parses src[start:end] into ss and returns the trailing
// literals' length; rep holds the repeated offsets, updated.
func (ms *matchState) compressOpt(ss *seqStore, rep *[3]uint32, start, end int, optLevel int) int {
	o := ms.opt
	src := ms.src
	ip, anchor := start, start
	iend := end
	ilimit := iend - 8
	prefixStart := int(ms.dictLimit - ms.base)
	sufficient := uint32(min(ms.p.targetLength, optNum-1))
	minMatch := uint32(4)
	if ms.p.minMatch == 3 {
		minMatch = 3
	}
	next3 := ms.nextToUpdate
	opt, matches := o.opt, o.matches
	var last optimal
	b2i := func(b bool) uint32 {
		if b {
			return 1
		}
		return 0
	}

	o.rescaleFreqs(src[start:end], optLevel)
	if ip == prefixStart {
		ip++ // the first byte of a frame has nothing to match
	}

	for ip < ilimit {
		var cur, lastPos uint32
		// The first match: without one, on to the next byte.
		litlen := uint32(ip - anchor)
		nb := ms.btGetAllMatches(matches, &next3, ip, iend, *rep, b2i(litlen == 0), minMatch)
		if nb == 0 {
			ip++
			continue
		}
		// opt[k] holds stretches: a match and the literals after it.
		// opt[0] is the literals since the last match; their own price
		// is the same on every path and left out.
		opt[0].mlen = 0
		opt[0].litlen = litlen
		opt[0].price = o.litLengthPrice(litlen, optLevel)
		opt[0].rep = *rep

		decided := false
		if maxML := matches[nb-1].len; maxML > sufficient {
			// long enough: taken at once
			last.litlen, last.mlen, last.off = 0, maxML, matches[nb-1].off
			cur, lastPos = 0, maxML
			decided = true
		} else {
			pos := uint32(1)
			for ; pos < minMatch; pos++ {
				opt[pos].price = maxPrice
				opt[pos].mlen = 0
				opt[pos].litlen = litlen + pos
			}
			for _, m := range matches[:nb] {
				for ; pos <= m.len; pos++ {
					opt[pos].mlen = pos
					opt[pos].off = m.off
					opt[pos].litlen = 0
					opt[pos].price = opt[0].price + o.matchPrice(m.off, pos, optLevel) + o.litLengthPrice(0, optLevel)
				}
			}
			lastPos = pos - 1
			opt[pos].price = maxPrice
		}

		// the positions ahead
		if !decided {
			cur = 1
		}
		for ; !decided && cur <= lastPos; cur++ {
			inr := ip + int(cur)
			// a literal more, where that is cheaper
			{
				litlen := opt[cur-1].litlen + 1
				price := opt[cur-1].price + o.litPrice(src[ip+int(cur)-1], optLevel) + o.llIncPrice(litlen, optLevel)
				if price <= opt[cur].price {
					prevMatch := opt[cur]
					opt[cur] = opt[cur-1]
					opt[cur].litlen = litlen
					opt[cur].price = price
					// A match replaced here may yet be the better way
					// to the next position, with one literal after it.
					if optLevel >= 1 && prevMatch.litlen == 0 && o.llIncPrice(1, optLevel) < 0 && ip+int(cur) < iend {
						with1 := prevMatch.price + o.litPrice(src[ip+int(cur)], optLevel) + o.llIncPrice(1, optLevel)
						withMore := price + o.litPrice(src[ip+int(cur)], optLevel) + o.llIncPrice(litlen+1, optLevel)
						if with1 < withMore && with1 < opt[cur+1].price {
							prev := cur - prevMatch.mlen
							reps := newRep(opt[prev].rep, prevMatch.off, opt[prev].litlen == 0)
							opt[cur+1] = prevMatch
							opt[cur+1].rep = reps
							opt[cur+1].litlen = 1
							opt[cur+1].price = with1
							lastPos = max(lastPos, cur+1)
						}
					}
				}
			}
			// The repeated offsets after a match ending here, now that
			// it is chosen.
			if opt[cur].litlen == 0 {
				prev := cur - opt[cur].mlen
				opt[cur].rep = newRep(opt[prev].rep, opt[cur].off, opt[prev].litlen == 0)
			}
			if inr > ilimit {
				continue // a match must start 8 bytes before the end
			}
			if cur == lastPos {
				break
			}
			if optLevel == 0 && opt[cur+1].price <= opt[cur].price+bitCostMultiplier/2 {
				continue // unpromising
			}
			ll0 := opt[cur].litlen == 0
			basePrice := opt[cur].price + o.litLengthPrice(0, optLevel)
			nb := ms.btGetAllMatches(matches, &next3, inr, iend, opt[cur].rep, b2i(ll0), minMatch)
			if nb == 0 {
				continue
			}
			if longest := matches[nb-1].len; longest > sufficient || cur+longest >= optNum || inr+int(longest) >= iend {
				last.mlen, last.off, last.litlen = longest, matches[nb-1].off, 0
				lastPos = cur + longest
				decided = true
				break
			}
			for i, m := range matches[:nb] {
				startML := minMatch
				if i > 0 {
					startML = matches[i-1].len + 1
				}
				for mlen := m.len; mlen >= startML; mlen-- {
					pos := cur + mlen
					price := basePrice + o.matchPrice(m.off, mlen, optLevel)
					if pos > lastPos || price < opt[pos].price {
						for lastPos < pos {
							lastPos++
							opt[lastPos].price = maxPrice
							opt[lastPos].litlen = 1 // not the end of a match
						}
						opt[pos].mlen = mlen
						opt[pos].off = m.off
						opt[pos].litlen = 0
						opt[pos].price = price
					} else if optLevel == 0 {
						break
					}
				}
			}
			opt[lastPos+1].price = maxPrice
		}
		if !decided {
			last = opt[lastPos]
			cur = lastPos - last.mlen
		}

		// the cheapest path, walked back from its end
		if last.mlen == 0 {
			// all literals: they join the next series
			ip += int(lastPos)
			continue
		}
		if last.litlen == 0 {
			*rep = newRep(opt[cur].rep, last.off, opt[cur].litlen == 0)
		} else {
			*rep = last.rep
			cur -= last.litlen
		}
		// The stretches turn into sequences (literals, then a match),
		// stored from storeEnd down over the table's front.
		storeEnd := cur + 2
		stretchPos := cur
		if last.litlen > 0 {
			// (libzstd writes these, then overwrites them below)
			opt[storeEnd].litlen = last.litlen
			opt[storeEnd].mlen = 0
			opt[storeEnd-1] = last
		}
		opt[storeEnd] = last
		storeStart := storeEnd
		for {
			next := opt[stretchPos]
			opt[storeStart].litlen = next.litlen
			if next.mlen == 0 {
				break
			}
			storeStart--
			opt[storeStart] = next
			stretchPos -= next.litlen + next.mlen
		}
		for sp := storeStart; sp <= storeEnd; sp++ {
			llen, mlen, off := opt[sp].litlen, opt[sp].mlen, opt[sp].off
			if mlen == 0 {
				ip = anchor + int(llen)
				continue
			}
			lits := src[anchor : anchor+int(llen)]
			o.updateStats(lits, off, mlen)
			ss.store(lits, off, int(mlen))
			anchor += int(llen + mlen)
			ip = anchor
		}
		o.setBasePrices(optLevel)
	}
	return iend - anchor
}

// initStatsUltra is btultra2's first pass over the frame's first block:
// parsed only for its statistics, then forgotten, the block's indices
// moved past those of the pass so that no match refers to it.
func (ms *matchState) initStatsUltra(ss *seqStore, rep [3]uint32, start, end int) {
	ms.compressOpt(ss, &rep, start, end, 2)
	ss.reset()
	n := uint32(end - start)
	ms.base += n
	ms.dictLimit += n
	ms.lowLimit = ms.dictLimit
	ms.nextToUpdate = ms.dictLimit
}

// compressBt parses one block with the level's optimal strategy.
func (ms *matchState) compressBt(ss *seqStore, rep *[3]uint32, start, end int) int {
	optLevel := 2
	switch ms.p.strat {
	case stratBtopt:
		optLevel = 0
	case stratBtultra2:
		curr := uint32(start) + ms.base
		if ms.opt.litLengthSum == 0 && len(ss.seqs) == 0 && ms.dictLimit == ms.lowLimit &&
			curr == ms.dictLimit && end-start > predefThreshold {
			ms.initStatsUltra(ss, *rep, start, end)
		}
	}
	return ms.compressOpt(ss, rep, start, end, optLevel)
}
