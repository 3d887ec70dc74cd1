// Package cubin reads what a cubin (the ELF file ptxas writes, machine
// EM_CUDA) says of its target: the SM it runs on, and whether it uses the
// architecture-specific features of an "a" target such as sm_90a.
//
// NVIDIA has used two layouts of e_flags, told apart by EI_ABIVERSION (the
// names are those of LLVM's BinaryFormat/ELF.h):
//
//	ABI version 7 and below (CUDA 12 and before): the SM in bits 0-7
//	(EF_CUDA_SM), 0x400 64-bit addressing, 0x800 an "a" target
//	(EF_CUDA_ACCELERATORS_V1), the virtual (PTX) SM in bits 16-23;
//	CUDA 11.8's ptxas writes 0x500550 for sm_80.
//	ABI version 8 (CUDA 13): the SM in bits 8-15 (EF_CUDA_SM_MASK), 0x8 an
//	"a" target (EF_CUDA_ACCELERATORS); CUDA 13.0's ptxas writes 0x6005a04
//	for sm_90, 0x6006402 for sm_100, 0x6007802 for sm_120.
//
// CUDA 13.0's ptxas does not set 0x8 for sm_90a or sm_100a: their e_flags
// equal sm_90's and sm_100's (the fixtures of docs/provenance.md), and the
// "a" is recorded in the .nv.compat section instead, attribute 9 set to 1
// (0 for the plain target), which Read looks at. An "f" target (sm_100f)
// leaves no mark at all: NVIDIA documents its cubins as those of the plain
// target.
package cubin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// Target is a cubin's target as its headers say it.
type Target struct {
	SM int // 90 for sm_90
	// Accelerated marks an "a" target (sm_90a): code that uses features of
	// that SM alone, which no later SM runs.
	Accelerated bool
	ABIVersion  int    // EI_ABIVERSION: 7 up to CUDA 12, 8 from CUDA 13
	Flags       uint32 // e_flags as stored
}

// String is the target's name: "sm_90", "sm_90a".
func (t Target) String() string {
	if t.Accelerated {
		return fmt.Sprintf("sm_%da", t.SM)
	}
	return fmt.Sprintf("sm_%d", t.SM)
}

// ErrFormat marks what is not a cubin this package can read.
var ErrFormat = errors.New("cubin: not a cubin")

// FormatError says what is wrong with a cubin and where.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string { return fmt.Sprintf("cubin: %s at offset %#x", e.Msg, e.Off) }

func (e *FormatError) Unwrap() error { return ErrFormat }

// EI_ABIVERSION values of the two e_flags layouts.
const (
	ABIVersion1 = 7 // and below
	ABIVersion2 = 8
)

// e_flags bits (LLVM's names).
const (
	efCUDASM               = 0xff
	efCUDAAcceleratorsV1   = 0x800
	efCUDASMMask           = 0xff00
	efCUDASMOffset         = 8
	efCUDAAccelerators     = 0x8
	elfClass32, elfClass64 = 1, 2
)

// HeaderSize is how much of a cubin FromHeader needs: an ELF64 header.
const HeaderSize = 64

// FromHeader reads the target from the ELF header at the start of h (52
// bytes for ELF32, 64 for ELF64, little-endian as every cubin is); it
// does not check e_machine, which fatbinary does not either. An "a"
// target of ABI version 8 reads as the plain one: see Read.
func FromHeader(h []byte) (Target, error) {
	if len(h) < 52 || string(h[:4]) != "\x7fELF" {
		return Target{}, &FormatError{0, "no ELF header"}
	}
	at := 48
	switch h[4] {
	case elfClass32:
		at = 36
	case elfClass64:
		if len(h) < HeaderSize {
			return Target{}, &FormatError{0, "truncated ELF64 header"}
		}
	default:
		return Target{}, &FormatError{4, fmt.Sprintf("unknown ELF class %d", h[4])}
	}
	t := Target{ABIVersion: int(h[8]), Flags: binary.LittleEndian.Uint32(h[at:])}
	switch {
	case t.ABIVersion <= ABIVersion1:
		t.SM, t.Accelerated = int(t.Flags&efCUDASM), t.Flags&efCUDAAcceleratorsV1 != 0
	case t.ABIVersion == ABIVersion2:
		t.SM, t.Accelerated = int(t.Flags&efCUDASMMask)>>efCUDASMOffset, t.Flags&efCUDAAccelerators != 0
	default:
		return Target{}, &FormatError{8, fmt.Sprintf("unknown CUDA ELF ABI version %d (e_flags %#x): 7 and 8 are known", t.ABIVersion, t.Flags)}
	}
	if t.SM == 0 {
		return Target{}, &FormatError{int64(at), fmt.Sprintf("e_flags %#x of ABI version %d name no SM", t.Flags, t.ABIVersion)}
	}
	return t, nil
}

// maxCompat bounds the .nv.compat section read: ptxas 13 writes 36 bytes.
const maxCompat = 4096

// Read reads the target of the cubin of size bytes in r: its ELF header,
// and for ABI version 8 the .nv.compat section, where ptxas 13 marks an
// "a" target. Only the headers and that section are read.
func Read(r io.ReaderAt, size int64) (Target, error) {
	h := make([]byte, min(size, HeaderSize))
	if _, err := r.ReadAt(h, 0); err != nil && err != io.EOF {
		return Target{}, err
	}
	t, err := FromHeader(h)
	if err != nil || t.ABIVersion != ABIVersion2 || t.Accelerated {
		return t, err
	}
	f, err := elfobj.Open(r, size)
	if err != nil {
		return Target{}, err
	}
	s, ok := f.SectionByName(".nv.compat")
	if !ok {
		return t, nil
	}
	if s.Size > maxCompat {
		return Target{}, &FormatError{int64(s.Offset), fmt.Sprintf(".nv.compat of %d bytes, over the %d read", s.Size, maxCompat)}
	}
	b := make([]byte, s.Size)
	if _, err := f.SectionReader(s).ReadAt(b, 0); err != nil && !(err == io.EOF && len(b) == 0) {
		return Target{}, err
	}
	v, err := compatAttribute(b, compatAccelerated)
	if err != nil {
		return Target{}, &FormatError{int64(s.Offset), err.Error()}
	}
	t.Accelerated = v == 1
	return t, nil
}

// compatAccelerated is the .nv.compat attribute that is 1 in the cubins
// of "a" targets (sm_90a, sm_100a) and 0 in the others.
const compatAccelerated = 9

// compatAttribute returns the value of attribute attr in the records of a
// .nv.compat section, -1 when it has none. The records are laid out as
// those of .nv.info: a format byte, an attribute byte, then for format 2
// and 3 a 16-bit value, for format 4 a 16-bit size and that many bytes.
func compatAttribute(b []byte, attr byte) (int, error) {
	for i := 0; i < len(b); {
		if len(b)-i < 4 {
			if allZero(b[i:]) { // padding
				return -1, nil
			}
			return 0, fmt.Errorf(".nv.compat: truncated record at byte %d", i)
		}
		format, a, v := b[i], b[i+1], int(binary.LittleEndian.Uint16(b[i+2:]))
		switch format {
		case 1, 2, 3:
			if a == attr {
				if format == 2 {
					v &= 0xff
				}
				return v, nil
			}
			i += 4
		case 4:
			if v > len(b)-i-4 {
				return 0, fmt.Errorf(".nv.compat: record of %d bytes at byte %d runs past the section", v, i)
			}
			i += 4 + v
		case 0:
			if allZero(b[i:]) {
				return -1, nil
			}
			fallthrough
		default:
			return 0, fmt.Errorf(".nv.compat: unknown record format %d at byte %d", format, i)
		}
	}
	return -1, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
