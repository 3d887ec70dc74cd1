package nvfatbin

import (
	"errors"
	"testing"
)

func TestParseImageSpecs(t *testing.T) {
	for _, c := range []struct {
		image3 bool
		spec   string
		want   ImageSpec
	}{
		{true, "kind=elf,sm=70,file=k.cubin", ImageSpec{KindELF, 70, false, "k.cubin"}},
		{true, "file=/a/b=c.s,sm=90,kind=ptx", ImageSpec{KindPTX, 90, false, "/a/b=c.s"}},
		{true, "kind=elf,sm=90a,file=k.cubin", ImageSpec{KindELF, 90, true, "k.cubin"}},
		{true, "kind=ptx,sm=100a,file=k.ptx", ImageSpec{KindPTX, 100, true, "k.ptx"}},
		{true, "kind=elf,sm=121a,file=k.cubin", ImageSpec{KindELF, 121, true, "k.cubin"}},
		{false, "profile=sm_52,file=k.cubin", ImageSpec{KindELF, 52, false, "k.cubin"}},
		{false, "file=k.ptx,profile=compute_86", ImageSpec{KindPTX, 86, false, "k.ptx"}},
		{false, "profile=sm_90a,file=k.cubin", ImageSpec{KindELF, 90, true, "k.cubin"}},
		{false, "profile=compute_90a,file=k.ptx", ImageSpec{KindPTX, 90, true, "k.ptx"}},
	} {
		parse := ParseImage
		if c.image3 {
			parse = ParseImage3
		}
		if got, err := parse(c.spec); err != nil || got != c.want {
			t.Errorf("%q: %+v, %v", c.spec, got, err)
		}
	}
	for _, c := range []struct {
		image3 bool
		spec   string
	}{
		{true, ""}, {true, "kind=elf,sm=70"}, {true, "kind=elf,file=f"}, {true, "sm=70,file=f"},
		{true, "kind=cubin,sm=70,file=f"}, {true, "kind=elf,sm=70a,file=f"}, {true, "kind=elf,sm=070,file=f"},
		{true, "kind=elf,sm=-5,file=f"}, {true, "kind=elf,sm=65536,file=f"}, {true, "kind=elf,sm=99999999999999999999,file=f"},
		{true, "kind=elf,sm=70,file="}, {true, "kind=elf,sm=70,file=f,kind=ptx"}, {true, "kind=elf,sm=70,file=a,b"},
		{true, "kind=elf,sm=70,file=f,profile=sm_70"}, {true, "kind=elf, sm=70,file=f"},
		{false, "profile=sm70,file=f"}, {false, "profile=lto_70,file=f"}, {false, "profile=compute_,file=f"},
		{false, "profile=sm_70"}, {false, "file=f"}, {false, "kind=elf,profile=sm_70,file=f"},
		// Suffixes: "a" on an SM that has no "a" target, "f" (not
		// modelled), anything else, a suffix alone or twice.
		{true, "kind=elf,sm=89a,file=f"}, {true, "kind=ptx,sm=91a,file=f"}, {true, "kind=elf,sm=100f,file=f"},
		{true, "kind=elf,sm=90A,file=f"}, {true, "kind=elf,sm=90aa,file=f"}, {true, "kind=elf,sm=90b,file=f"},
		{true, "kind=elf,sm=a,file=f"}, {true, "kind=elf,sm=90a1,file=f"}, {true, "kind=elf,sm=090a,file=f"},
		{false, "profile=sm_70a,file=f"}, {false, "profile=compute_100f,file=f"}, {false, "profile=sm_a,file=f"},
	} {
		parse, option := ParseImage, "image"
		if c.image3 {
			parse, option = ParseImage3, "image3"
		}
		_, err := parse(c.spec)
		var se *SpecError
		if !errors.As(err, &se) || se.Option != option || se.Spec != c.spec {
			t.Errorf("%q: got %v, want a SpecError naming --%s", c.spec, err, option)
		}
	}
}
