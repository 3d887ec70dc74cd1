// Package xxh3 computes XXH3-64 (seed 0, default secret), the hash LLVM 22's
// StringMap uses (llvm::xxh3_64bits). The bundler needs it to list and
// visit bundle entries in the order LLVM's StringMap iterates them. It is a
// plain scalar implementation: the keys it hashes are short.
package xxh3

import (
	"encoding/binary"
	"math/bits"
)

const (
	prime32_1 = 0x9E3779B1
	prime32_2 = 0x85EBCA77
	prime32_3 = 0xC2B2AE3D
	prime64_1 = 0x9E3779B185EBCA87
	prime64_2 = 0xC2B2AE3D27D4EB4F
	prime64_3 = 0x165667B19E3779F9
	prime64_4 = 0x85EBCA77C2B2AE63
	prime64_5 = 0x27D4EB2F165667C5
	primeMX1  = 0x165667919E3779F9
	primeMX2  = 0x9FB21C651E98DF25

	stripeLen   = 64
	secretMin   = 136 // the secret size the 129–240 byte path indexes from
	blockLen    = stripeLen * (len(secret) - stripeLen) / 8
	lastAccFrom = 7
	mergeFrom   = 11
)

// secret is the algorithm's default 192-byte secret (kSecret).
var secret = [192]byte{
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
}

// Sum64 returns the XXH3-64 hash of b.
func Sum64(b []byte) uint64 {
	n := len(b)
	switch {
	case n == 0:
		return avalanche64(r64(secret[56:]) ^ r64(secret[64:]))
	case n <= 3:
		return len1to3(b)
	case n <= 8:
		return len4to8(b)
	case n <= 16:
		return len9to16(b)
	case n <= 128:
		return len17to128(b)
	case n <= 240:
		return len129to240(b)
	}
	return long(b)
}

// SumString is Sum64 of a string.
func SumString(s string) uint64 { return Sum64([]byte(s)) }

func r32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func r64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// mulFold is the 128-bit product of a and b, its halves xored.
func mulFold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// avalanche64 is XXH64's final mix; avalanche is XXH3's.
func avalanche64(h uint64) uint64 {
	h ^= h >> 33
	h *= prime64_2
	h ^= h >> 29
	h *= prime64_3
	return h ^ h>>32
}

func avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= primeMX1
	return h ^ h>>32
}

func len1to3(b []byte) uint64 {
	n := len(b)
	combined := uint32(b[0])<<16 | uint32(b[n>>1])<<24 | uint32(b[n-1]) | uint32(n)<<8
	flip := uint64(r32(secret[0:]) ^ r32(secret[4:]))
	return avalanche64(uint64(combined) ^ flip)
}

func len4to8(b []byte) uint64 {
	n := len(b)
	in := uint64(r32(b[n-4:])) + uint64(r32(b))<<32
	h := in ^ (r64(secret[8:]) ^ r64(secret[16:]))
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= primeMX2
	h ^= h>>35 + uint64(n)
	h *= primeMX2
	return h ^ h>>28
}

func len9to16(b []byte) uint64 {
	n := len(b)
	lo := r64(b) ^ (r64(secret[24:]) ^ r64(secret[32:]))
	hi := r64(b[n-8:]) ^ (r64(secret[40:]) ^ r64(secret[48:]))
	return avalanche(uint64(n) + bits.ReverseBytes64(lo) + hi + mulFold(lo, hi))
}

// mix16 mixes 16 input bytes with 16 secret bytes.
func mix16(in, sec []byte) uint64 {
	return mulFold(r64(in)^r64(sec), r64(in[8:])^r64(sec[8:]))
}

func len17to128(b []byte) uint64 {
	n := len(b)
	acc := uint64(n) * prime64_1
	// Pairs of 16-byte chunks from both ends, the innermost first.
	for i := (n - 1) / 32; i >= 0; i-- {
		acc += mix16(b[16*i:], secret[32*i:])
		acc += mix16(b[n-16*(i+1):], secret[32*i+16:])
	}
	return avalanche(acc)
}

func len129to240(b []byte) uint64 {
	n := len(b)
	acc := uint64(n) * prime64_1
	for i := 0; i < 8; i++ {
		acc += mix16(b[16*i:], secret[16*i:])
	}
	acc = avalanche(acc)
	for i := 8; i < n/16; i++ {
		acc += mix16(b[16*i:], secret[16*(i-8)+3:])
	}
	acc += mix16(b[n-16:], secret[secretMin-17:])
	return avalanche(acc)
}

// long hashes inputs over 240 bytes: stripes of 64 bytes feed eight
// accumulators, scrambled after every block of 16 stripes.
func long(b []byte) uint64 {
	acc := [8]uint64{prime32_3, prime64_1, prime64_2, prime64_3, prime64_4, prime32_2, prime64_5, prime32_1}
	n := len(b)
	stripesPerBlock := (len(secret) - stripeLen) / 8
	blocks := (n - 1) / blockLen
	for k := 0; k < blocks; k++ {
		accumulate(&acc, b[k*blockLen:], stripesPerBlock)
		scramble(&acc, secret[len(secret)-stripeLen:])
	}
	stripes := (n - 1 - blocks*blockLen) / stripeLen
	accumulate(&acc, b[blocks*blockLen:], stripes)
	stripe(&acc, b[n-stripeLen:], secret[len(secret)-stripeLen-lastAccFrom:])
	h := uint64(n) * prime64_1
	for i := 0; i < 4; i++ {
		h += mulFold(acc[2*i]^r64(secret[mergeFrom+16*i:]), acc[2*i+1]^r64(secret[mergeFrom+16*i+8:]))
	}
	return avalanche(h)
}

func accumulate(acc *[8]uint64, b []byte, stripes int) {
	for s := 0; s < stripes; s++ {
		stripe(acc, b[s*stripeLen:], secret[s*8:])
	}
}

func stripe(acc *[8]uint64, in, sec []byte) {
	for i := 0; i < 8; i++ {
		v := r64(in[8*i:])
		k := v ^ r64(sec[8*i:])
		acc[i^1] += v
		acc[i] += uint64(uint32(k)) * (k >> 32)
	}
}

func scramble(acc *[8]uint64, sec []byte) {
	for i := range acc {
		a := acc[i]
		a ^= a >> 47
		a ^= r64(sec[8*i:])
		acc[i] = a * prime32_1
	}
}
