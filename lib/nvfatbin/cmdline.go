package nvfatbin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ImageSpec is one image named on fatbinary's command line: the value of
// --image ("profile=sm_70,file=k.cubin", "profile=compute_70,file=k.ptx")
// or of --image3 ("kind=elf,sm=70,file=k.cubin", "kind=ptx,sm=70,...",
// what clang's CUDA driver writes). An architecture-specific target
// (sm=90a, profile=sm_90a) has Accelerated set.
type ImageSpec struct {
	Kind        Kind
	Arch        int
	Accelerated bool
	File        string
}

// SpecError says which image option cannot be read, and why.
type SpecError struct {
	Option, Spec, Msg string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("nvfatbin: --%s=%s: %s", e.Option, e.Spec, e.Msg)
}

// ParseImage reads the value of --image.
func ParseImage(spec string) (ImageSpec, error) {
	kv, err := keywords("image", spec, "profile", "file")
	if err != nil {
		return ImageSpec{}, err
	}
	s := ImageSpec{File: kv["file"]}
	profile, arch := kv["profile"], ""
	switch {
	case strings.HasPrefix(profile, "sm_"):
		s.Kind, arch = KindELF, profile[len("sm_"):]
	case strings.HasPrefix(profile, "compute_"):
		s.Kind, arch = KindPTX, profile[len("compute_"):]
	default:
		return ImageSpec{}, &SpecError{"image", spec, fmt.Sprintf("unknown profile %q: want sm_NN or compute_NN", profile)}
	}
	if s.Arch, s.Accelerated, err = parseArch(arch); err != nil {
		return ImageSpec{}, &SpecError{"image", spec, fmt.Sprintf("unknown profile %q: %v", profile, err)}
	}
	return s, nil
}

// ParseImage3 reads the value of --image3. Where fatbinary reads sm= as C
// reads a number ("070" as 70, "-5" as 4294967291) and takes any "a"
// (CUDA 12.4's writes sm_70a), an architecture is required: a number, or
// one with an "a" target ("90a").
func ParseImage3(spec string) (ImageSpec, error) {
	kv, err := keywords("image3", spec, "kind", "sm", "file")
	if err != nil {
		return ImageSpec{}, err
	}
	s := ImageSpec{File: kv["file"]}
	switch kv["kind"] {
	case "elf":
		s.Kind = KindELF
	case "ptx":
		s.Kind = KindPTX
	default:
		return ImageSpec{}, &SpecError{"image3", spec, fmt.Sprintf("unknown kind %q: want elf or ptx", kv["kind"])}
	}
	if s.Arch, s.Accelerated, err = parseArch(kv["sm"]); err != nil {
		return ImageSpec{}, &SpecError{"image3", spec, fmt.Sprintf("sm=%s: %v", kv["sm"], err)}
	}
	return s, nil
}

// keywords splits "k=v,k=v" and requires each of names exactly once, as
// fatbinary does; a file name cannot hold a comma, in fatbinary either.
func keywords(option, spec string, names ...string) (map[string]string, error) {
	kv := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(part, "=")
		switch {
		case !ok || !slices.Contains(names, k):
			return nil, &SpecError{option, spec, fmt.Sprintf("%q is not one of its keywords (%s)", part, strings.Join(names, ", "))}
		case kv[k] != "" || ok && v == "":
			return nil, &SpecError{option, spec, fmt.Sprintf("keyword %q given twice or without a value", k)}
		}
		kv[k] = v
	}
	for _, k := range names {
		if kv[k] == "" {
			return nil, &SpecError{option, spec, fmt.Sprintf("missing %s=", k)}
		}
	}
	return kv, nil
}

// archNumber is the architecture a decimal string names, or 0 when it
// names none: digits only, no leading zero, at most 0xFFFF.
func archNumber(s string) int {
	if s == "" || s[0] == '0' || strings.TrimLeft(s, "0123456789") != "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 0xFFFF {
		return 0
	}
	return n
}
