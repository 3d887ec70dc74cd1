package packager

import (
	"encoding/binary"
	"math/bits"
)

// This file reproduces llvm::hash_value(StringRef) as built into LLVM 22
// (llvm/ADT/Hashing.h before the switch to xxh3: a CityHash variant with a
// fixed seed in release builds). The packager needs it only to recreate the
// iteration order of LLVM's DenseMap of --image keys, which decides the order
// of string entries in the output and so its bytes.

const (
	hk0 = 0xc3a5c85c97cb3127
	hk1 = 0xb492b66fbe98f273
	hk2 = 0x9ae16a3b2f90404f
	hk3 = 0xc949d7c7509e6557

	// llvmSeed is get_execution_seed() without ABI-breaking checks, the
	// configuration of distribution (release) builds.
	llvmSeed = 0xff51afd7ed558ccd
)

func fetch64(s []byte) uint64 { return binary.LittleEndian.Uint64(s) }
func fetch32(s []byte) uint64 { return uint64(binary.LittleEndian.Uint32(s)) }

func rotr(v uint64, n int) uint64 { return bits.RotateLeft64(v, -n) }

func shiftMix(v uint64) uint64 { return v ^ (v >> 47) }

func hash16(low, high uint64) uint64 {
	const mul = 0x9ddfea08eb382d69
	a := (low ^ high) * mul
	a ^= a >> 47
	b := (high ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func hash1to3(s []byte, seed uint64) uint64 {
	n := len(s)
	a, b, c := uint32(s[0]), uint32(s[n>>1]), uint32(s[n-1])
	y := a + b<<8
	z := uint32(n) + c<<2
	return shiftMix(uint64(y)*hk2^uint64(z)*hk3^seed) * hk2
}

func hash4to8(s []byte, seed uint64) uint64 {
	n := len(s)
	a := fetch32(s)
	return hash16(uint64(n)+a<<3, seed^fetch32(s[n-4:]))
}

func hash9to16(s []byte, seed uint64) uint64 {
	n := len(s)
	a := fetch64(s)
	b := fetch64(s[n-8:])
	return hash16(seed^a, rotr(b+uint64(n), n)) ^ b
}

func hash17to32(s []byte, seed uint64) uint64 {
	n := uint64(len(s))
	a := fetch64(s) * hk1
	b := fetch64(s[8:])
	c := fetch64(s[n-8:]) * hk2
	d := fetch64(s[n-16:]) * hk0
	return hash16(rotr(a-b, 43)+rotr(c^seed, 30)+d, a+rotr(b^hk3, 20)-c+n+seed)
}

func hash33to64(s []byte, seed uint64) uint64 {
	n := uint64(len(s))
	z := fetch64(s[24:])
	a := fetch64(s) + (n+fetch64(s[n-16:]))*hk0
	b := rotr(a+z, 52)
	c := rotr(a, 37)
	a += fetch64(s[8:])
	c += rotr(a, 7)
	a += fetch64(s[16:])
	vf := a + z
	vs := b + rotr(a, 31) + c
	a = fetch64(s[16:]) + fetch64(s[n-32:])
	z = fetch64(s[n-8:])
	b = rotr(a+z, 52)
	c = rotr(a, 37)
	a += fetch64(s[n-24:])
	c += rotr(a, 7)
	a += fetch64(s[n-16:])
	wf := a + z
	ws := b + rotr(a, 31) + c
	r := shiftMix((vf+ws)*hk2 + (wf+vs)*hk0)
	return shiftMix((seed^(r*hk0))+vs) * hk2
}

func hashShort(s []byte, seed uint64) uint64 {
	switch n := len(s); {
	case n == 0:
		return hk2 ^ seed
	case n <= 3:
		return hash1to3(s, seed)
	case n <= 8:
		return hash4to8(s, seed)
	case n <= 16:
		return hash9to16(s, seed)
	case n <= 32:
		return hash17to32(s, seed)
	default:
		return hash33to64(s, seed)
	}
}

// hashState is the 64-byte block state used for inputs longer than 64 bytes.
type hashState struct{ h0, h1, h2, h3, h4, h5, h6 uint64 }

func newHashState(s []byte, seed uint64) hashState {
	st := hashState{
		h1: seed,
		h2: hash16(seed, hk1),
		h3: rotr(seed^hk1, 49),
		h4: seed * hk1,
		h5: shiftMix(seed),
	}
	st.h6 = hash16(st.h4, st.h5)
	st.mix(s)
	return st
}

func mix32(s []byte, a, b *uint64) {
	*a += fetch64(s)
	c := fetch64(s[24:])
	*b = rotr(*b+*a+c, 21)
	d := *a
	*a += fetch64(s[8:]) + fetch64(s[16:])
	*b += rotr(*a, 44) + d
	*a += c
}

func (st *hashState) mix(s []byte) {
	st.h0 = rotr(st.h0+st.h1+st.h3+fetch64(s[8:]), 37) * hk1
	st.h1 = rotr(st.h1+st.h4+fetch64(s[48:]), 42) * hk1
	st.h0 ^= st.h6
	st.h1 += st.h3 + fetch64(s[40:])
	st.h2 = rotr(st.h2+st.h5, 33) * hk1
	st.h3 = st.h4 * hk1
	st.h4 = st.h0 + st.h5
	mix32(s, &st.h3, &st.h4)
	st.h5 = st.h2 + st.h6
	st.h6 = st.h1 + fetch64(s[16:])
	mix32(s[32:], &st.h5, &st.h6)
	st.h0, st.h2 = st.h2, st.h0
}

func (st *hashState) finalize(n uint64) uint64 {
	return hash16(hash16(st.h3, st.h5)+shiftMix(st.h1)*hk1+st.h2,
		hash16(st.h4, st.h6)+shiftMix(n)*hk1+st.h0)
}

// llvmHashString is llvm::hash_value(StringRef) of LLVM 22 release builds.
func llvmHashString(str string) uint64 {
	s := []byte(str)
	if len(s) <= 64 {
		return hashShort(s, llvmSeed)
	}
	st := newHashState(s, llvmSeed)
	end := len(s) &^ 63
	for off := 64; off != end; off += 64 {
		st.mix(s[off:])
	}
	if len(s)&63 != 0 {
		st.mix(s[len(s)-64:])
	}
	return st.finalize(uint64(len(s)))
}
