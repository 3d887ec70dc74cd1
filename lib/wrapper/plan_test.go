package wrapper

import "testing"

// TestPlanArgsEncodable: every argument the plans pass is one the machine
// encoders can place: integer constants 0 and -1 (AArch64 has no other);
// past the six x86-64 argument registers zeros or flag bits, past the
// eight AArch64 ones zeros; at most ten arguments (x86-64 reserves four
// stack slots).
func TestPlanArgsEncodable(t *testing.T) {
	for _, tc := range matrix(t) {
		p, err := newPlan(tc.imgs, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		calls := []call{p.perEntry.kernel}
		for _, c := range p.perEntry.vars {
			calls = append(calls, c.call)
		}
		for _, s := range append(p.ctor, p.dtor...) {
			calls = append(calls, s.call)
		}
		for _, c := range calls {
			if len(c.args) > 10 {
				t.Errorf("%s: %s has %d arguments", tc.name, c.fn, len(c.args))
			}
			for i, g := range c.args {
				if g.kind == argInt && g.val != 0 && g.val != -1 {
					t.Errorf("%s: %s argument %d is %d", tc.name, c.fn, i, g.val)
				}
				zero := g.kind == argInt && g.val == 0
				if i >= 6 && g.kind != argFlag && !zero || i >= 8 && !zero {
					t.Errorf("%s: %s stack argument %d cannot be placed", tc.name, c.fn, i)
				}
			}
		}
	}
}

// TestRecordsMatchTypes: every record's fields have its type's value
// types, so C, the IR and the unit lay out the same struct.
func TestRecordsMatchTypes(t *testing.T) {
	for _, tc := range matrix(t) {
		p, err := newPlan(tc.imgs, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		recs := map[string][][]field{}
		if p.kind == OpenMP {
			recs[binDescType.name] = [][]field{p.descFields()}
			for i, im := range p.images {
				recs[deviceImageType.name] = append(recs[deviceImageType.name], p.imageRow(im))
				if i < len(p.infos) {
					recs[imageInfoType.name] = append(recs[imageInfoType.name], p.infoFields(i))
				}
			}
		} else {
			recs[fatbinWrapperType.name] = [][]field{p.wrapperFields()}
		}
		for _, ty := range []recType{deviceImageType, binDescType, imageInfoType, fatbinWrapperType} {
			for _, fields := range recs[ty.name] {
				if len(fields) != len(ty.fields) {
					t.Fatalf("%s: %s has %d fields, its type %d", tc.name, ty.name, len(fields), len(ty.fields))
				}
				for i, f := range fields {
					if f.typ != ty.fields[i].typ {
						t.Errorf("%s: %s field %d (%s): value of type %d, declared %d", tc.name, ty.name, i, ty.fields[i].c, f.typ, ty.fields[i].typ)
					}
				}
			}
		}
	}
}
