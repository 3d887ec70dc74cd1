package nvfatbin

import (
	"errors"
	"fmt"
	"strings"
)

// Architecture-specific targets ("a" targets such as sm_90a: code that
// uses features of that SM alone, wgmma and TMA on Hopper) are marked in
// an entry by one flag bit; the entry's SM field holds the number alone.
// Read off CUDA 12.4's fatbinary (docs/nvfatbin.md): --image3=...,sm=90a
// or --image=profile=sm_90a writes SM 90 with flag 0x100000, for cubins
// and PTX alike, whatever the cubin's own e_flags say; cuobjdump names the
// entry sm_90a. CUDA 11.8's fatbinary has no such targets (it reads sm=90a
// as 90 and refuses profile=sm_90a).
const FlagAccelerated = 0x100000

// acceleratedArchs are the SMs with an "a" target, as CUDA 12.9's and
// 13.0's tools list them (sm_101a was renamed sm_110a in CUDA 13).
var acceleratedArchs = []int{90, 100, 101, 103, 110, 120, 121}

// HasAccelerated reports whether sm_<arch>a is a target NVIDIA's tools
// know.
func HasAccelerated(arch int) bool {
	for _, a := range acceleratedArchs {
		if a == arch {
			return true
		}
	}
	return false
}

// firstAccelerated is the first SM with an "a" target: a reader refuses
// the flag on an earlier one (no such code exists), and takes it on later
// ones it does not know, which a newer CUDA may add.
const firstAccelerated = 90

// archName is "sm_90" or "sm_90a".
func archName(prefix string, arch int, accelerated bool) string {
	if accelerated {
		return fmt.Sprintf("%s%da", prefix, arch)
	}
	return fmt.Sprintf("%s%d", prefix, arch)
}

// parseArch reads an architecture as fatbinary's sm= or the number of a
// profile writes it: "90", or "90a" for an architecture-specific target.
// The "f" targets of CUDA 12.9 and later (sm_100f, family-specific) are
// refused: no fatbinary that writes them was at hand to read how their
// entries are marked (CUDA 12.4's refuses them as "invalid architecture").
func parseArch(s string) (arch int, accelerated bool, err error) {
	digits := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz")
	suffix := s[len(digits):]
	arch = archNumber(digits)
	switch {
	case arch == 0:
		return 0, false, errors.New("not an architecture number such as 90 (or 90a, an architecture-specific target)")
	case suffix == "":
		return arch, false, nil
	case suffix == "f":
		return 0, false, fmt.Errorf("family-specific target sm_%s: not written (no fatbinary that takes \"f\" targets, CUDA 12.9 and later, was at hand to read how their entries are marked); use sm_%d or sm_%da", s, arch, arch)
	case suffix != "a":
		return 0, false, fmt.Errorf("unknown suffix %q (only \"a\", as in 90a, is written)", suffix)
	case !HasAccelerated(arch):
		return 0, false, notAccelerated(arch)
	}
	return arch, true, nil
}

// notAccelerated says that sm_<arch>a does not exist.
func notAccelerated(arch int) error {
	names := make([]string, len(acceleratedArchs))
	for i, a := range acceleratedArchs {
		names[i] = archName("sm_", a, true)
	}
	return fmt.Errorf("sm_%da is not a target: SM %d has no architecture-specific variant (those known: %s)",
		arch, arch, strings.Join(names, ", "))
}

// AcceleratedError says why the release cannot write sm_<arch>a, or nil
// when it can (or accelerated is false). CUDA 11.8's fatbinary knows no
// "a" target: it would write the plain SM, losing the mark the driver
// and cuobjdump go by, so it is refused rather than written otherwise.
func (r Release) AcceleratedError(arch int, accelerated bool) error {
	switch {
	case !accelerated:
		return nil
	case !HasAccelerated(arch):
		return notAccelerated(arch)
	case r < CUDA124:
		return fmt.Errorf("sm_%da: CUDA %s's fatbinary has no architecture-specific targets (they came with CUDA 12.0); give --cuda-version=12.4 or later", arch, r)
	}
	return nil
}
