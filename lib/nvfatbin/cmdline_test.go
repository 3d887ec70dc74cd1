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
		{true, "kind=elf,sm=70,file=k.cubin", ImageSpec{KindELF, 70, "k.cubin"}},
		{true, "file=/a/b=c.s,sm=90,kind=ptx", ImageSpec{KindPTX, 90, "/a/b=c.s"}},
		{false, "profile=sm_52,file=k.cubin", ImageSpec{KindELF, 52, "k.cubin"}},
		{false, "file=k.ptx,profile=compute_86", ImageSpec{KindPTX, 86, "k.ptx"}},
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
