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
// what clang's CUDA driver writes).
type ImageSpec struct {
	Kind Kind
	Arch int
	File string
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
	profile := kv["profile"]
	switch {
	case strings.HasPrefix(profile, "sm_"):
		s.Kind, s.Arch = KindELF, archNumber(profile[len("sm_"):])
	case strings.HasPrefix(profile, "compute_"):
		s.Kind, s.Arch = KindPTX, archNumber(profile[len("compute_"):])
	}
	if s.Arch == 0 {
		return ImageSpec{}, &SpecError{"image", spec, fmt.Sprintf("unknown profile %q: want sm_NN or compute_NN", profile)}
	}
	return s, nil
}

// ParseImage3 reads the value of --image3. Where fatbinary reads sm= as C
// reads a number ("70a" as 70, "-5" as 4294967291), a number is required.
func ParseImage3(spec string) (ImageSpec, error) {
	kv, err := keywords("image3", spec, "kind", "sm", "file")
	if err != nil {
		return ImageSpec{}, err
	}
	s := ImageSpec{File: kv["file"], Arch: archNumber(kv["sm"])}
	switch kv["kind"] {
	case "elf":
		s.Kind = KindELF
	case "ptx":
		s.Kind = KindPTX
	default:
		return ImageSpec{}, &SpecError{"image3", spec, fmt.Sprintf("unknown kind %q: want elf or ptx", kv["kind"])}
	}
	if s.Arch == 0 {
		return ImageSpec{}, &SpecError{"image3", spec, fmt.Sprintf("sm=%s is not an architecture number such as 70 "+
			"(suffixed ones such as 90a are newer than the CUDA 11.8 format this writes)", kv["sm"])}
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
